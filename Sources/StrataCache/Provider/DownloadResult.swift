import Foundation

/// What a ``DownloadService`` returns: the cached file, the response headers and where the answer came from.
public struct DownloadResult<Result: Sendable>: Sendable {
    /// The downloaded or cached item: for a ``DownloadService``, the URL of the file the provider returned.
    public var result: Result

    /// The response headers: those of the 2xx response or of the 304; empty when no request was made.
    public var headers: [String: String]

    /// Whether the server was called, and what it answered.
    public var origin: DownloadOrigin

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - result: The item.
    ///   - headers: The response headers.
    ///   - origin: Where the item came from.
    public init(result: Result, headers: [String: String], origin: DownloadOrigin) {
        self.result = result
        self.headers = headers
        self.origin = origin
    }
}

/// Where a ``DownloadResult`` came from.
public enum DownloadOrigin: Sendable, Hashable {
    /// ``CacheProvider/find(key:)`` had it; no request was made.
    case cache
    /// The server answered `304 Not Modified`; ``CacheProvider/cachedItem(key:)`` provided it.
    case notModified
    /// The server sent it (2xx); ``CacheProvider/store(objectAt:key:headers:)`` took it.
    case network
}

extension DownloadResult: Equatable where Result: Equatable {}
