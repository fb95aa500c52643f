import Foundation

/// The validators of a stored response, sent back as `If-None-Match` and `If-Modified-Since` so that
/// the server can answer `304 Not Modified`.
///
/// ```swift
/// let conditions = ConditionalHeaders(eTag: entry.eTag, lastModified: entry.lastModified)
/// let response = try await client.send(request.withConditions(conditions))
/// // a 304 throws StrataError with code .notModified
/// ```
public struct ConditionalHeaders: Hashable, Sendable {
    /// The entity tag of the stored response, as the server sent it (`"abc"` or `W/"abc"`).
    public var eTag: String?

    /// The `Last-Modified` value of the stored response, as the server sent it.
    public var lastModified: String?

    /// Creates conditions from stored validators.
    ///
    /// - Parameters:
    ///   - eTag: The stored `ETag`, sent as `If-None-Match`.
    ///   - lastModified: The stored `Last-Modified`, sent verbatim as `If-Modified-Since`.
    public init(eTag: String? = nil, lastModified: String? = nil) {
        self.eTag = eTag
        self.lastModified = lastModified
    }

    /// Creates conditions with a modification date, formatted as an HTTP date.
    ///
    /// - Parameters:
    ///   - eTag: The stored `ETag`.
    ///   - lastModifiedDate: The stored modification date.
    public init(eTag: String?, lastModifiedDate: Date?) {
        self.init(eTag: eTag, lastModified: lastModifiedDate.map(HTTPDate.format))
    }

    /// Creates conditions from the validators of a stored response.
    ///
    /// - Parameter response: The stored response.
    public init(response: HTTPResponse) {
        self.init(eTag: response.eTag, lastModified: response.headers["Last-Modified"])
    }

    /// Whether there is nothing to send.
    public var isEmpty: Bool { eTag == nil && lastModified == nil }

    /// The request headers: `If-None-Match` and `If-Modified-Since`.
    public var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        if let eTag { headers["If-None-Match"] = eTag }
        if let lastModified { headers["If-Modified-Since"] = lastModified }
        return headers
    }

    /// Compares two entity tags with the weak comparison of RFC 9110 (section 8.8.3.2): equal opaque tags,
    /// whether or not either is weak (`W/`).
    ///
    /// - Parameters:
    ///   - lhs: An entity tag.
    ///   - rhs: Another entity tag.
    /// - Returns: Whether they match weakly.
    public static func weakMatch(_ lhs: String, _ rhs: String) -> Bool {
        opaqueTag(lhs) == opaqueTag(rhs)
    }

    private static func opaqueTag(_ tag: String) -> Substring {
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
    }
}
