/// Whether a ``DownloadService`` asks its ``CacheProvider`` before calling the server.
public enum CachePolicy: Sendable, Hashable {
    /// Ask ``CacheProvider/find(key:)`` first and make no request when it returns a file: the usual choice.
    ///
    /// Not when the request asks for a revalidated answer (`Cache-Control: no-cache` or `max-age=0`), nor for a
    /// ``FileCacheProvider`` copy whose response said `no-cache` or `must-revalidate` or varied by request fields
    /// (`Vary`): the provider keeps no lifetime and no request fields to prove it may be reused, so the request is sent
    /// with the provider's validators, and a `304` answers from the copy (RFC 9111, sections 4.1, 5.2.2.2, 5.2.2.4).
    case bypassServerCallOnFoundItem
    /// Always call the server, with the provider's ``CacheProvider/headerValues(for:)`` (an `If-None-Match`,
    /// say), and let a `304 Not Modified` answer from ``CacheProvider/cachedItem(key:)``.
    case alwaysFetchWithCustomHeader
}
