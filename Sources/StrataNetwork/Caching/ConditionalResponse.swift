/// The answer to a conditional request (``HTTPClient/send(_:ifModifiedSince:)``,
/// ``HTTPClient/download(_:ifModifiedSince:progress:)``): a new representation, or *not modified*.
///
/// A `304 Not Modified` is a value, not an error: the caller keeps the copy it has and renews it with the
/// 304's headers (a new `Cache-Control`, `Expires`, `Date`, `ETag`; RFC 9111, section 4.3.4).
///
/// ```swift
/// switch try await client.send(request, ifModifiedSince: ConditionalHeaders(eTag: stored.eTag)) {
/// case .modified(let response): store(response)
/// case .notModified(let response): renew(stored, with: response.headers)
/// }
/// ```
public enum ConditionalResponse<Fresh: Sendable>: Sendable {
    /// The server sent a 2xx: the response (``HTTPResponse``) or the downloaded file (``DownloadedFile``).
    case modified(Fresh)

    /// The server answered `304 Not Modified`: the response with its status and every header, repeated
    /// fields kept, and no body. For a download no file was created.
    case notModified(HTTPResponse)
}

extension ConditionalResponse: Equatable where Fresh: Equatable {}

extension ConditionalResponse: Hashable where Fresh: Hashable {}
