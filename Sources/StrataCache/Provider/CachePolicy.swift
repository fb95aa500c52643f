/// Whether a ``DownloadService`` asks its ``CacheProvider`` before calling the server.
public enum CachePolicy: Sendable, Hashable {
    /// Ask ``CacheProvider/find(key:)`` first and make no request when it returns a file: the usual choice.
    case bypassServerCallOnFoundItem
    /// Always call the server, with the provider's ``CacheProvider/headerValues(for:)`` (an `If-None-Match`,
    /// say), and let a `304 Not Modified` answer from ``CacheProvider/cachedItem(key:)``.
    case alwaysFetchWithCustomHeader
}
