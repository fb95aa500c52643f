import Foundation

/// The validators of a stored response, sent back as `If-None-Match` and `If-Modified-Since` so that
/// the server can answer `304 Not Modified`.
///
/// ```swift
/// let conditions = ConditionalHeaders(eTag: stored.eTag, lastModified: stored.lastModified)
/// switch try await client.send(request, ifModifiedSince: conditions) {
/// case .modified(let response): store(response)
/// case .notModified(let response): renew(stored, with: response.headers)   // a 304 is a value
/// }
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
    /// An `ETag` that is not a valid entity tag (unquoted, unterminated, a list) is left out: it is never
    /// sent back to revalidate.
    ///
    /// - Parameter response: The stored response.
    public init(response: HTTPResponse) {
        self.init(
            eTag: response.eTag.flatMap { Self.isValidEntityTag($0) ? $0 : nil },
            lastModified: response.headers["Last-Modified"]
        )
    }

    /// Whether there is nothing to send.
    public var isEmpty: Bool { eTag == nil && lastModified == nil }

    /// The request headers: `If-None-Match` (only for a valid entity tag) and `If-Modified-Since` (only for a
    /// value without control characters, which could not be sent).
    public var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        if let eTag, Self.isValidEntityTag(eTag) { headers["If-None-Match"] = eTag }
        if let lastModified, HTTPSyntax.isFieldValue(lastModified) { headers["If-Modified-Since"] = lastModified }
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
        // Byte for byte, as the RFC compares them: `==` would take canonically equivalent tags for one.
        opaqueTag(lhs).utf8.elementsEqual(opaqueTag(rhs).utf8)
    }

    /// Whether a value is one entity tag as RFC 9110 (section 8.8.3) defines it: an optional `W/`, then
    /// a quoted string of visible characters other than `"` (`"abc"`, `W/"abc"`, `""`).
    ///
    /// - Parameter tag: An `ETag` value as received.
    /// - Returns: `false` for garbage such as `abc`, `"abc`, `*` or a list.
    public static func isValidEntityTag(_ tag: String) -> Bool {
        var bytes = Array(tag.trimmingCharacters(in: .whitespaces).utf8)[...]
        if bytes.starts(with: "W/".utf8) { bytes = bytes.dropFirst(2) }
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            return false
        }
        // etagc = %x21 / %x23-7E / obs-text (%x80-FF)
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }

    /// Whether a value is one strong entity tag: valid (``isValidEntityTag(_:)``) and without `W/`.
    ///
    /// - Parameter tag: An `ETag` value as received.
    public static func isStrongEntityTag(_ tag: String) -> Bool {
        isValidEntityTag(tag) && !tag.trimmingCharacters(in: .whitespaces).utf8.starts(with: "W/".utf8)
    }

    /// The validators a stored response keeps after a `304` renewed it: the 304's `ETag` and `Last-Modified` only
    /// when its `ETag` matches the stored one weakly (the 304 names the stored version); the stored ones otherwise.
    ///
    /// A 304's validators never stand in for stored ones they do not match (RFC 9111, section 4.3.4): a tag the
    /// stored response lacked would label its old bytes as another version.
    ///
    /// - Parameter notModified: The 304.
    public func renewed(by notModified: HTTPResponse) -> ConditionalHeaders {
        guard let stored = eTag, Self.isValidEntityTag(stored), let answered = notModified.eTag,
            Self.weakMatch(stored, answered)
        else { return self }
        return ConditionalHeaders(eTag: answered, lastModified: notModified.headers["Last-Modified"] ?? lastModified)
    }

    private static func opaqueTag(_ tag: String) -> Substring {
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed.utf8.starts(with: "W/".utf8) ? Substring(trimmed.utf8.dropFirst(2)) : Substring(trimmed)
    }
}
