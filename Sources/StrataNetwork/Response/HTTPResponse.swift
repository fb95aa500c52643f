import Foundation

/// An HTTP response: status, headers and body, with the caching headers parsed.
///
/// See ``cacheControl``, ``eTag``, ``expires`` and ``HTTPFreshness`` for what a cache needs.
public struct HTTPResponse: Hashable, Sendable {
    /// The status code, such as `200`.
    public var status: Int

    /// The header fields, looked up case-insensitively.
    public var headers: HTTPHeaders

    /// The body; empty for a download, whose body is in a file.
    public var body: Data

    /// The URL that answered, after redirects, when the transport knows it.
    public var url: URL?

    /// Whether the request was a write that a redirect the transport followed turned into a `GET` (a 303; a `POST`'s
    /// 301 or 302): the answer is the `GET`'s, after a write the server may have carried out, and ``HTTPClient`` fails
    /// an error status of it as one that may have taken effect, never retried and never a conflict. Strata's transports
    /// set it; a transport of your own that follows redirects should set it too.
    public var followedAsGet = false

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The header fields.
    ///   - body: The body.
    ///   - url: The URL that answered.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// Whether the status is in the 2xx range.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
