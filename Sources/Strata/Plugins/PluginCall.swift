/// What a plugin sees of one call: the method, the query, the operation and the source.
///
/// The expensive descriptions (``queryDescription``, ``operationName``) are computed only when read, so a
/// plugin that does not need them costs nothing for them.
public struct PluginCall: Sendable {
    /// The method of a data source or repository that is being called.
    public enum Method: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// `get(_:)` or `get(_:operation:)`.
        case get
        /// `getAll(_:)` or `getAll(_:operation:)`.
        case getAll
        /// `put(_:in:)` or `put(_:in:operation:)`.
        case put
        /// `putAll(_:in:)` or `putAll(_:in:operation:)`.
        case putAll
        /// `delete(_:)` or `delete(_:operation:)`.
        case delete

        /// Whether the method reads (`get`, `getAll`).
        public var isRead: Bool { self == .get || self == .getAll }

        /// The method's name, such as `getAll`.
        public var description: String { rawValue }
    }

    /// The method being called.
    public let method: Method

    /// The query of the call.
    public let query: any Query

    /// The operation of a repository call; `nil` for a data source.
    public let operation: (any RepositoryOperation)?

    /// The name of the data source or repository the plugins are attached to.
    public let source: String

    /// The value being written by `put` (the value) or `putAll` (the array); `nil` otherwise.
    public let value: (any Sendable)?

    /// Which source or repository the call is of, one number per plugin chain (``newAttachment()``): two sources of
    /// one name differ; `0` for a call made with the public initializer.
    let attachment: Int

    /// The validators a conditional read (``GetDataSource/getIfModified(_:since:)``, seen as a `get`) sends; `nil` for
    /// any other call. Its answer holds for those validators alone (``CoalescingPlugin``).
    var validators: Validators?

    /// Numbers the plugin chains of the process.
    private static let attachments = AtomicCount(1)

    /// A number no other plugin chain of the process has (``attachment``).
    static func newAttachment() -> Int { attachments.add(1) }

    /// The query as text, such as `IdQuery<Int>(id: 42)`.
    public var queryDescription: String { String(describing: query) }

    /// The operation's name (``RepositoryOperation/name``): `default`, `main`, `mainSync`, `cache`,
    /// `cacheIgnoringValidation`, `cacheSync`, `cacheSyncStaleWhileRevalidate` (a `cacheSync` with a
    /// stale-while-revalidate window), or what a custom operation says (its type name by default); `nil` for a data
    /// source.
    public var operationName: String? { operation?.name }
}

// The initializer is declared here, outside the type, so that the type keeps its memberwise one: a call of the plugin
// chain numbered `attachment` is made with `PluginCall(method:query:operation:source:value:attachment:)`.
extension PluginCall {
    /// Creates a call description.
    ///
    /// - Parameters:
    ///   - method: The method being called.
    ///   - query: The query of the call.
    ///   - operation: The repository operation, or `nil` for a data source.
    ///   - source: The name of the source or repository.
    ///   - value: The value being written, if any.
    public init(
        method: Method,
        query: any Query,
        operation: (any RepositoryOperation)? = nil,
        source: String,
        value: (any Sendable)? = nil
    ) {
        self.init(method: method, query: query, operation: operation, source: source, value: value, attachment: 0)
    }
}
