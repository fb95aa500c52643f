import Foundation
import StrataNetwork

/// A URL-based cache that a ``DownloadService`` consults and fills: the Oracle Content SDK's
/// `CacheProvider`, with `Sendable` and `[String: String]` headers.
///
/// ```swift
/// // Not compiled: an outline; the bodies are the app's own
/// struct MyCacheProvider: CacheProvider {
///     var cachePolicy: CachePolicy { .alwaysFetchWithCustomHeader }
///     func find(key: String) -> URL? { … }
///     func cachedItem(key: String) throws -> URL { … }
///     func store(objectAt file: URL, key: String, headers: [String: String]) throws -> URL { … }
///     func headerValues(for cacheKey: String) -> [String: String] { ["If-None-Match": eTag(for: cacheKey)] }
/// }
/// ```
///
/// The download service calls the methods from any thread, so a provider is `Sendable`. Every error a
/// method throws fails the download with that same error. ``FileCacheProvider`` is a ready implementation.
public protocol CacheProvider: Sendable {
    /// Whether the download service asks ``find(key:)`` before making any request.
    var cachePolicy: CachePolicy { get }

    /// Returns the file cached under `key`, or `nil`; a file means no request is made.
    ///
    /// Called only when ``cachePolicy`` is ``CachePolicy/bypassServerCallOnFoundItem``.
    ///
    /// - Parameter key: The download's cache key.
    func find(key: String) -> URL?

    /// Returns the file cached under `key` after the server answered `304 Not Modified`.
    ///
    /// - Parameter key: The download's cache key.
    /// - Throws: Any error, when the cache no longer holds the item; the download fails with it, but for a
    ///   ``Strata/StrataError`` with the code ``Strata/StrataError/Code/notFound`` (the item evicted or removed since
    ///   the request was sent), for which the download asks once more without the provider's headers.
    func cachedItem(key: String) throws -> URL

    /// Takes a finished download into the cache and returns where the cached file now is.
    ///
    /// The file at `file` is a temporary file the provider may move (best) or copy; the download service
    /// deletes it afterwards if it is still there and is not the file the returned URL leads to (by any path: device
    /// and inode are compared).
    ///
    /// - Parameters:
    ///   - file: The downloaded file.
    ///   - key: The download's cache key.
    ///   - headers: The response headers (names as the server sent them: compare them case-insensitively); with
    ///     `Cache-Control: no-store` in place of the server's when the status or the request forbid storing the
    ///     download (a `202` without freshness, a request that said `no-store`), which the headers alone do not say:
    ///     a provider that honours `no-store` stores nothing then.
    /// - Returns: The cached file, which the download returns to its caller.
    /// - Throws: Any error; the download fails with it.
    func store(objectAt file: URL, key: String, headers: [String: String]) throws -> URL

    /// Headers to set on the request for `cacheKey`, such as `If-None-Match`; each replaces any header of
    /// the same name (compared case-insensitively) the request already has.
    ///
    /// - Parameter cacheKey: The download's cache key.
    func headerValues(for cacheKey: String) -> [String: String]

    /// Renews the item cached under `key` after the server answered `304 Not Modified`, before
    /// ``cachedItem(key:)`` returns it: its validators and dates, from the 304's headers, without rewriting
    /// the file.
    ///
    /// Called by the default ``renewItem(key:notModified:sentWith:)`` only while ``headerValues(for:)`` still
    /// returns the headers the request was sent with: otherwise the 304 is about a version the cache no longer
    /// holds. The default does nothing.
    ///
    /// - Parameters:
    ///   - key: The download's cache key.
    ///   - response: The 304, with every header it had.
    /// - Throws: Any error; the download fails with it.
    func renewItem(key: String, notModified response: HTTPResponse) async throws

    /// Renews the item cached under `key` after a `304 Not Modified` to a request sent with `headers` (what
    /// ``headerValues(for:)`` returned then) — or removes it, when the 304's fields forbid keeping it (its
    /// `Cache-Control` says `no-store`) — only if it is still the version those headers describe.
    ///
    /// This is what the download service calls. Another download of the key may store a newer version while the
    /// request is on its way, or while the 304 is being handled: the 304 is about the older one, and must neither
    /// renew nor remove the newer. A provider that can look at its item and change it under one lock implements
    /// this (``FileCacheProvider`` does); the default checks ``headerValues(for:)`` and then calls
    /// ``renewItem(key:notModified:)``, two steps another download can land between.
    ///
    /// When the 304 forbids keeping the item and ``headerValues(for:)`` still returns `headers` afterwards (a provider
    /// whose renewal keeps it), the download service hands a copy of the item to
    /// ``store(objectAt:key:headers:)`` with `Cache-Control: no-store`, as it does for a full answer that must not
    /// be stored.
    ///
    /// - Parameters:
    ///   - key: The download's cache key.
    ///   - response: The 304, with every header it had.
    ///   - headers: The provider's headers the request was sent with; never empty.
    /// - Throws: Any error; the download fails with it.
    func renewItem(key: String, notModified response: HTTPResponse, sentWith headers: [String: String]) async throws
}

extension CacheProvider {
    /// Does nothing: the item stays as it was stored.
    public func renewItem(key: String, notModified response: HTTPResponse) async throws {}

    /// Calls ``renewItem(key:notModified:)`` when ``headerValues(for:)`` still returns `headers`.
    public func renewItem(
        key: String,
        notModified response: HTTPResponse,
        sentWith headers: [String: String]
    ) async throws {
        guard headerValues(for: key) == headers else { return }
        try await renewItem(key: key, notModified: response)
    }
}
