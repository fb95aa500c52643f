/// What every repository shares, whatever it can do: ``GetRepository``, ``PutRepository`` and
/// ``DeleteRepository`` refine it.
///
/// It is where conveniences that apply to every repository live, such as `plugins(_:name:)`, so they are
/// declared once rather than once per combination of shapes.
public protocol RepositoryCapabilities: Sendable {}
