import Foundation
import Strata
import StrataNetwork

/// What a ``DownloadService`` returns: the cached file, the response headers and where the answer came from.
public struct DownloadResult<Result: Sendable>: Sendable {
    /// The downloaded or cached item: for a ``DownloadService``, the URL of the file the provider returned.
    public var result: Result

    /// The response headers as a dictionary, repeated fields joined by `", "`: those of the 2xx response or
    /// of the 304; empty when no request was made.
    public var headers: [String: String]

    /// The response headers, every field in the order received (two `Set-Cookie` stay two): those of the 2xx
    /// response or of the 304; empty when no request was made.
    public var responseHeaders: HTTPHeaders

    /// Whether the server was called, and what it answered: `.cache` (``CacheProvider/find(key:)`` had it, no
    /// request), `.revalidated` (a `304`; ``CacheProvider/cachedItem(key:)`` provided it) or `.network` (a 2xx;
    /// ``CacheProvider/store(objectAt:key:headers:)`` took it).
    public var origin: DataOrigin

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - result: The item.
    ///   - headers: The response headers.
    ///   - origin: Where the item came from.
    public init(result: Result, headers: [String: String], origin: DataOrigin) {
        self.result = result
        self.headers = headers
        self.responseHeaders = HTTPHeaders(headers)
        self.origin = origin
    }

    /// Creates a result with the response's headers as received.
    ///
    /// - Parameters:
    ///   - result: The item.
    ///   - responseHeaders: The response headers, repeated fields kept.
    ///   - origin: Where the item came from.
    public init(result: Result, responseHeaders: HTTPHeaders, origin: DataOrigin) {
        self.result = result
        self.headers = responseHeaders.dictionary
        self.responseHeaders = responseHeaders
        self.origin = origin
    }

    /// Creates a result from an origin of the earlier type.
    ///
    /// - Parameters:
    ///   - result: The item.
    ///   - headers: The response headers.
    ///   - origin: Where the item came from.
    @available(*, deprecated, message: "Pass a DataOrigin")
    @_disfavoredOverload
    public init(result: Result, headers: [String: String], origin: DownloadOrigin) {
        self.init(result: result, headers: headers, origin: origin.dataOrigin)
    }

    /// Creates a result with the response's headers as received, from an origin of the earlier type.
    ///
    /// - Parameters:
    ///   - result: The item.
    ///   - responseHeaders: The response headers, repeated fields kept.
    ///   - origin: Where the item came from.
    @available(*, deprecated, message: "Pass a DataOrigin")
    @_disfavoredOverload
    public init(result: Result, responseHeaders: HTTPHeaders, origin: DownloadOrigin) {
        self.init(result: result, responseHeaders: responseHeaders, origin: origin.dataOrigin)
    }
}

/// Where a ``DownloadResult`` came from.
@available(*, deprecated, message: "Use Strata's DataOrigin: .cache, .revalidated (for notModified) or .network")
public enum DownloadOrigin: Sendable, Hashable {
    /// ``CacheProvider/find(key:)`` had it; no request was made.
    case cache
    /// The server answered `304 Not Modified`; ``CacheProvider/cachedItem(key:)`` provided it.
    case notModified
    /// The server sent it (2xx); ``CacheProvider/store(objectAt:key:headers:)`` took it.
    case network

    /// The same origin as a `DataOrigin`; ``notModified`` is `.revalidated`.
    public var dataOrigin: DataOrigin {
        switch self {
        case .cache: .cache
        case .notModified: .revalidated
        case .network: .network
        }
    }
}

extension DownloadResult: Equatable where Result: Equatable {
    /// Equal results: the same item, origin and ``headers`` (the dictionary, so a result made from one compares
    /// equal to one made from the same fields).
    public static func == (lhs: DownloadResult, rhs: DownloadResult) -> Bool {
        lhs.result == rhs.result && lhs.headers == rhs.headers && lhs.origin == rhs.origin
    }
}
