/// Whether a ``DownloadService`` asks its ``CacheProvider`` before calling the server.
public enum CachePolicy: Sendable, Hashable {
    /// Ask ``CacheProvider/find(key:)`` first and make no request when it returns a file: the usual choice.
    ///
    /// Not when the request asks for a revalidated answer (`Cache-Control: no-cache` or `max-age=0`), nor for a
    /// ``FileCacheProvider`` copy whose response said `no-cache` or `must-revalidate` (the provider keeps no lifetime to
    /// prove it may be reused), or varied by request fields (`Vary`) that this request sends other values in than the
    /// download's did (the provider keeps a digest of those values; a file stored by hand, whose request it does not
    /// know, is asked about each time): the request is then sent with the provider's validators, and a `304` answers
    /// from the copy (RFC 9111, sections 4.1, 5.2.2.2, 5.2.2.4).
    case bypassServerCallOnFoundItem
    /// Always call the server, with the provider's ``CacheProvider/headerValues(for:)`` (an `If-None-Match`,
    /// say), and let a `304 Not Modified` answer from ``CacheProvider/cachedItem(key:)``.
    case alwaysFetchWithCustomHeader
}
