/// An HTTP request method: `GET`, `PUT`, `POST`, `PATCH`, `DELETE`, `HEAD` or any other token.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method as it goes on the wire, such as `GET`.
    public let rawValue: String

    /// Creates a method from its wire form; it is upper-cased.
    ///
    /// - Parameter rawValue: The method name.
    public init(rawValue: String) {
        self.rawValue = rawValue.uppercased()
    }

    /// The method name.
    public var description: String { rawValue }

    /// Whether sending the request twice has the effect of sending it once (RFC 9110, section 9.2.2): `GET`,
    /// `HEAD`, `OPTIONS`, `TRACE`, `PUT` and `DELETE`; not `POST` nor `PATCH`, nor a method this type does not know.
    public var isIdempotent: Bool {
        ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"].contains(rawValue)
    }

    /// `GET`: read a resource.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `PUT`: replace a resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `POST`: create a resource or run an action.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PATCH`: change part of a resource.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`: read a resource's headers only.
    public static let head = HTTPMethod(rawValue: "HEAD")
}
