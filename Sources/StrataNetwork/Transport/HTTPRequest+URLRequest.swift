import Foundation
import Strata

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPRequest {
    /// The `URLRequest` for this request, with local caching off
    /// (`.reloadIgnoringLocalCacheData`): Strata's caches are the only ones.
    ///
    /// Its `timeoutInterval` is only a backstop, a minute past the longer of ``timeout`` and
    /// ``totalTimeout``: FoundationNetworking truncates it to whole seconds and restarts it at every byte,
    /// so ``URLSessionTransport`` enforces both deadlines itself. A caller sending the `URLRequest` another
    /// way must do the same.
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when the URL cannot be formed, when the method or a
    ///   header could change the request's framing (see ``validate()``), or for a `GET` or `HEAD` with a body, which
    ///   URLSession does not send (Apple's fails it with `NSURLErrorDataLengthExceedsMaximum`, FoundationNetworking
    ///   with another error).
    public func urlRequest() throws -> URLRequest {
        let url = try validatedURL()
        // URLSession refuses to send it, as a network error, which a retry would only repeat.
        if method == .get || method == .head, body != nil {
            throw StrataError(
                .invalidArgument,
                "URLSession cannot send a body with \(method.rawValue): send it with POST, or use the AsyncHTTPClient "
                    + "transport"
            )
        }
        // A minute past the deadlines Strata enforces, the transport's defaults for those the request leaves unset.
        let deadlines = RequestDeadlines(of: self)
        var request = URLRequest(
            url: url,
            cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: RequestDeadlines.backstop(idle: deadlines.idle, total: deadlines.total)
        )
        // A new request's method is `GET` already, and FoundationNetworking's setter (which normalizes the name) costs
        // more than the comparison.
        if method != .get { request.httpMethod = method.rawValue }
        for field in headers.fields { request.addValue(field.value, forHTTPHeaderField: field.name) }
        request.httpBody = body
        return request
    }
}
