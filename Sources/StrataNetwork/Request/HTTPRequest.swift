import Foundation
import Strata

/// An HTTP request described as a value: method, base URL and path, query items, headers, body,
/// deadlines and cache key.
///
/// ```swift
/// var request = HTTPRequest(.get, baseURL: base, path: "users/42")
/// request.queryItems = [URLQueryItem(name: "fields", value: "name")]
/// request.headers["Accept"] = "application/json"
/// request.timeout = .seconds(10)        // no byte for 10 s: fail
/// request.totalTimeout = .seconds(30)   // not done in 30 s: fail
/// ```
public struct HTTPRequest: Hashable, Sendable {
    /// The method, `GET` by default.
    public var method: HTTPMethod

    /// The URL the path is resolved against.
    public var baseURL: URL

    /// The path appended to ``baseURL``; empty for the base URL itself.
    ///
    /// Plain text, not percent-encoded: a space, `%`, `?`, `#` or `;` is encoded for you (`;` too, where some
    /// servers start path parameters: `/users/1;x` would be `/users/1`), and `/` separates segments, so a key
    /// holding a `/` names a resource further down. A `.` or `..` segment is refused by ``url()``: a server
    /// (or libcurl, before sending) resolves it, and `users/\(key)` with the key `../admin` would reach `/admin`.
    public var path: String

    /// The query items appended to the URL, in order.
    public var queryItems: [URLQueryItem]

    /// The header fields.
    public var headers: HTTPHeaders

    /// The body, if any; see ``withJSONBody(_:encoder:)`` for `Encodable` values.
    public var body: Data?

    /// The idle timeout: the request fails when no byte moves, either way, for this long; `nil` uses the
    /// client's ``HTTPClient/Configuration/timeout`` (60 seconds by default). Honoured to the millisecond; time the
    /// process stood still (stopped, swapped out, starved of every core: bytes wait unseen) does not count as idle.
    public var timeout: Duration?

    /// The total deadline: the request fails when it has not finished, body included, this long after it
    /// started; `nil` uses the client's ``HTTPClient/Configuration/totalTimeout`` (10 minutes by default).
    /// Honoured to the millisecond.
    public var totalTimeout: Duration?

    private var customCacheKey: String?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - baseURL: The URL the path is resolved against.
    ///   - path: The path appended to the base URL; a leading `/` is not needed.
    ///   - queryItems: The query items.
    ///   - headers: The header fields.
    ///   - body: The body.
    ///   - timeout: The idle timeout; `nil` uses the client's default.
    ///   - totalTimeout: The total deadline; `nil` uses the client's default.
    public init(
        _ method: HTTPMethod = .get,
        baseURL: URL,
        path: String = "",
        queryItems: [URLQueryItem] = [],
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeout: Duration? = nil,
        totalTimeout: Duration? = nil
    ) {
        self.method = method
        self.baseURL = baseURL
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.totalTimeout = totalTimeout
    }

    /// Creates a request for a full URL.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The URL.
    public init(_ method: HTTPMethod = .get, url: URL) {
        self.init(method, baseURL: url)
    }

    /// The key a cache stores the response under: by default the full URL with its query, without its fragment (never
    /// sent).
    ///
    /// Set it to share one cache entry between URLs that differ only in, say, a signature parameter.
    public var cacheKey: String {
        get { customCacheKey ?? (try? url().withoutFragment.absoluteString) ?? baseURL.absoluteString + path }
        set { customCacheKey = newValue }
    }

    /// The full URL: base URL, path and query items.
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when the parts do not form a URL, or ``path`` holds a
    ///   `.` or `..` segment.
    public func url() throws -> URL {
        var url = baseURL
        let trimmed = path.drop { $0 == "/" }
        if let segment = Self.dotSegment(in: trimmed, decoding: false) {
            throw StrataError(
                .invalidArgument,
                "The path \(HTTPSyntax.quoted(path)) holds the segment \"\(segment)\", which would take the request to "
                    + "another resource (RFC 3986, section 5.2.4); a key placed in a path must not be \".\" or \"..\""
            )
        }
        if !trimmed.isEmpty {
            url = url.appendingPathComponent(String(trimmed), isDirectory: trimmed.hasSuffix("/"))
            if trimmed.contains(";") { url = try Self.encodingSemicolons(of: url, pastThePathOf: baseURL) }
        }
        // The whole path too: a URL given whole (`init(_:url:)`, a base URL) may hold a key placed in it by hand, and
        // the transport would resolve its dot segments before sending (`notes/../admin` is `/admin` on the wire).
        let sentPath = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        if let segment = Self.dotSegment(in: Substring(sentPath), decoding: true) {
            throw StrataError(
                .invalidArgument,
                "The URL \(url.describedForErrors) holds the path segment \"\(segment)\", which would take the request to "
                    + "another resource (RFC 3986, section 5.2.4); a key placed in a URL must not be \".\" or \"..\""
            )
        }
        guard !queryItems.isEmpty else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw StrataError(.invalidArgument, "Invalid URL: \(url.describedForErrors)")
        }
        // Appended to the query as it is: read back as items, the base URL's query lost its encoding (a signed
        // link's `%2B` went out as `+`, which a server reads as a space). An item's `+`, `&`, `=` and `;` are
        // encoded, as a server's form decoding needs.
        let added = queryItems.map { item in
            Self.queryEncoded(item.name) + (item.value.map { "=" + Self.queryEncoded($0) } ?? "")
        }
        let existing = components.percentEncodedQuery.map { [$0] } ?? []
        components.percentEncodedQuery = (existing.filter { !$0.isEmpty } + added).joined(separator: "&")
        guard let result = components.url else {
            throw StrataError(.invalidArgument, "Invalid query for \(url.describedForErrors): \(queryItems)")
        }
        return result
    }

    /// The characters a query item's name or value keeps as they are: those a query allows but `+`, `&`, `=` and
    /// `;` (which some servers' query parsing splits at too).
    private static let queryItemAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "+&=;"))

    /// `url` with each `;` of the path it has past `base`'s encoded as `%3B`: a key placed in ``path`` is read as
    /// it is by servers that take `;` as the start of path parameters (`/users/1;x` would be `/users/1`, and
    /// `..;/admin` `/admin`). The base URL's own `;`s stay.
    private static func encodingSemicolons(of url: URL, pastThePathOf base: URL) throws -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw StrataError(.invalidArgument, "Invalid URL: \(url.describedForErrors)")
        }
        let path = components.percentEncodedPath
        // The base's path as it stands in the joined URL; were it written otherwise there, every `;` is encoded.
        let basePath = URLComponents(url: base, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        let kept = path.hasPrefix(basePath) ? basePath : ""
        components.percentEncodedPath = kept + path.dropFirst(kept.count).replacingOccurrences(of: ";", with: "%3B")
        guard let encoded = components.url else {
            throw StrataError(.invalidArgument, "Invalid URL: \(url.describedForErrors)")
        }
        return encoded
    }

    /// `text` percent-encoded as a query item's name or value.
    private static func queryEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryItemAllowed) ?? ""
    }

    /// The first segment of `path` that is `.` or `..`; `nil` when there is none.
    ///
    /// Split by bytes, not by `Character`: a combining mark or a joiner after a `/` makes the two one `Character`,
    /// which would hide the segment before it (`../\u{301}admin`).
    ///
    /// - Parameters:
    ///   - path: A path: the request's ``path`` (a `%` in it is sent as `%25`), or a URL's percent-encoded path.
    ///   - decoding: Whether a segment counts once percent-decoded too (`%2e%2E`, which a server may decode), as a
    ///     URL's path does.
    ///
    /// Read byte by byte, without decoding the path: a segment decodes to `.` or `..` only when it is one or two dots,
    /// each `.` or (when decoding) `%2E` or `%2e`. Decoding every segment with Foundation cost a cold `BlobCache` fetch
    /// about a tenth of its CPU, since every request's URL is checked several times.
    static func dotSegment(in path: Substring, decoding: Bool) -> String? {
        let bytes = path.utf8
        var start = bytes.startIndex
        while start != bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
            if start != end, isDotSegment(bytes[start..<end], decoding: decoding) {
                return String(Substring(bytes[start..<end]))
            }
            start = end == bytes.endIndex ? end : bytes.index(after: end)
        }
        return nil
    }

    /// Whether a segment's bytes are one or two dots, each `.` or, when `decoding`, its escape `%2E` or `%2e`.
    private static func isDotSegment(_ segment: Substring.UTF8View.SubSequence, decoding: Bool) -> Bool {
        var dots = 0
        var index = segment.startIndex
        while index != segment.endIndex {
            if segment[index] == UInt8(ascii: ".") {
                index = segment.index(after: index)
            } else if decoding, segment[index...].starts(with: "%2".utf8) {
                let digit = segment.index(index, offsetBy: 2)
                guard digit != segment.endIndex, segment[digit] | 0x20 == UInt8(ascii: "e") else { return false }
                index = segment.index(after: digit)
            } else {
                return false
            }
            dots += 1
            if dots > 2 { return false }
        }
        return dots > 0
    }

    /// Returns a copy whose body is `value` encoded as JSON, with `Content-Type: application/json`.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - encoder: The encoder.
    /// - Throws: ``Strata/StrataError/Code/dataSerialization`` when encoding fails.
    public func withJSONBody(_ value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws -> HTTPRequest {
        var copy = self
        do {
            copy.body = try encoder.encode(value)
        } catch {
            throw StrataError.serialization(error, "Encoding the body of \(method) \(path) failed")
        }
        if copy.headers["Content-Type"] == nil { copy.headers["Content-Type"] = "application/json" }
        return copy
    }

    /// Returns a copy with the headers of a conditional request added.
    ///
    /// - Parameter conditions: The validators of the stored response.
    public func withConditions(_ conditions: ConditionalHeaders) -> HTTPRequest {
        var copy = self
        copy.headers.merge(conditions.headers)
        return copy
    }

    /// Returns a copy that asks for the stored copy `conditions` describe again, if it changed: with the conditions
    /// on a GET or a HEAD, as it is on another method. There, `If-None-Match` and `If-Modified-Since` are
    /// preconditions of a change (RFC 9110, section 13.1), which a server answers with `412 Precondition Failed`
    /// when the tag matches: a query sent as a POST is sent without them.
    ///
    /// - Parameter conditions: The validators of the stored response.
    func revalidating(_ conditions: ConditionalHeaders) -> HTTPRequest {
        guard !conditions.isEmpty, [HTTPMethod.get, .head].contains(method) else { return self }
        return withConditions(conditions)
    }
}
