import Foundation
import Strata

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPRequest {
    /// The `URLRequest` for this request, with local caching off
    /// (`.reloadIgnoringLocalCacheData`): Strata's caches are the only ones.
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when the URL cannot be formed.
    public func urlRequest() throws -> URLRequest {
        var request = URLRequest(url: try url())
        request.httpMethod = method.rawValue
        request.cachePolicy = .reloadIgnoringLocalCacheData
        if let timeout { request.timeoutInterval = timeout.timeInterval }
        for field in headers.fields { request.addValue(field.value, forHTTPHeaderField: field.name) }
        request.httpBody = body
        return request
    }
}
