import Foundation
import Strata
import StrataFile
import StrataMemory
import StrataNetwork

/// A cache of downloaded blobs in three layers — memory, disk, network — built from Strata's own data sources:
/// Kumo's `BlobCache`.
///
/// A fetch asks the ephemeral layer (a `MemoryDataSource`) first, then the persistent layer (a
/// `FileDataSource`), then downloads with an `HTTPClient`. A hit in a lower layer
/// is copied into the higher ones; a download is stored in both. Concurrent fetches of one URL share one
/// request (a ``Strata/RequestCoalescer``).
///
/// Below memory, a fetch is a `CacheRepository` chain: the memory layer over a repository of the file layer
/// (behind a freshness validator, so a stale blob is revalidated with a conditional request) over the network.
/// ``Configuration/plugins`` wrap each layer and see its calls.
///
/// ```swift
/// let blobs = try BlobCache(baseURL: URL(string: "https://example.com")!)
/// let png: Data = try await blobs.fetch(from: URL(string: "images/logo.png")!)
/// let notes: String = try await blobs.fetch(from: URL(string: "notes.txt")!)
/// let user = try await blobs.fetch(from: URL(string: "users/42")!, as: User.self)
/// ```
///
/// Each layer has its own heuristics (``EphemeralLayer``, ``PersistentLayer``): an initial lifetime, a
/// ``LifetimeExtension`` policy and a ``CleaningRule``. Downloads follow HTTP caching (RFC 9111), computed by
/// StrataNetwork's `HTTPFreshness` for a private cache (``Configuration/freshnessPolicy``): freshness comes
/// from `max-age` or `Expires` − `Date`, less the response's age, when the response has them, otherwise from
/// the layer's initial lifetime; `no-store` responses are not stored; a response that varies on request fields
/// (`Vary: Accept-Language`) is served from disk only to a request that sends the same values in them (a digest of
/// them is kept with it), and `Vary: *` is never stored; `no-cache` ones are stored stale; a stale
/// blob with an `ETag` or `Last-Modified` is revalidated with `If-None-Match` / `If-Modified-Since`, and a
/// `304` renews it without transferring or rewriting its bytes. A response's `stale-while-revalidate` and
/// `stale-if-error` (RFC 5861) let its stale blob be served at once or instead of an error
/// (<doc:StaleBlobs>).
public final class BlobCache: Sendable {
    /// The layers, policies and clock.
    public let configuration: Configuration

    /// The client that downloads what neither layer holds: Kumo's `Service`.
    public let client: HTTPClient

    /// The URL that relative URLs are resolved against, if any.
    public let baseURL: URL?

    let memory: MemoryDataSource<CachedBlob>
    /// Whether the ephemeral layer extends lifetimes on hits; read once, not per hit.
    let ephemeralExtends: Bool
    /// Whether plugins watch the layers; read once, not per hit.
    let hasPlugins: Bool
    let blobs: FileDataSource
    /// Downloads queued for the persistent layer (``PersistentWrites/behind``), at most
    /// ``PersistentLayer/writeBehindLimit`` bytes of them before a fetch waits for room.
    let writes: WriteBehind<String, QueuedWrite>
    /// Memory over file over the network: the repository chain every fetch below memory takes.
    let chain: Chain
    /// Counts the removals (``remove(_:)``, ``removeAll()``) that clear memory: a blob read before one (from disk, or
    /// from memory to extend its lifetime) never goes back into memory after it
    /// (``putInMemory(_:forKey:now:readAfter:)``).
    let removals = PutBackGuard()

    /// Creates a cache that downloads with `service`.
    ///
    /// - Parameters:
    ///   - service: The client for downloads.
    ///   - baseURL: The URL relative URLs are resolved against; `nil` to accept absolute URLs only.
    ///   - configuration: The layers, policies and clock.
    /// - Throws: ``Strata/StrataError/Code/alreadyInUse`` when a live cache already uses the persistent
    ///   layer's folder (a released one too, while the writes it queued are not done:
    ///   ``PersistentWrites/behind``), ``Strata/StrataError/Code/io`` when it cannot be created,
    ///   ``Strata/StrataError/Code/invalidArgument`` for a persistent `maxSize` or `maxCount` below 1.
    public init(using service: HTTPClient, baseURL: URL? = nil, configuration: Configuration = Configuration()) throws {
        for (name, limit) in [
            ("maxSize", configuration.persistent.maxSize), ("maxCount", configuration.persistent.maxCount),
        ]
        where limit.map({ $0 < 1 }) == true {
            throw StrataError(
                .invalidArgument,
                "The persistent layer's \(name) must be at least 1, or nil for no limit; got \(limit ?? 0)"
            )
        }
        self.configuration = configuration
        self.client = service
        self.baseURL = baseURL
        let link = BlobCacheLink()
        chain = Self.makeChain(link, configuration: configuration)
        let ephemeral = configuration.ephemeral
        ephemeralExtends = ephemeral.lifetimeExtension != .none
        hasPlugins = !configuration.plugins.isEmpty
        memory = MemoryDataSource(
            configuration: .init(
                countLimit: ephemeral.countLimit,
                costLimit: ephemeral.costLimit,
                cost: { Blob.footprint(ofBytes: $0.data.count) },
                // HTTP lifetimes are whole seconds: with the system clock, a hit checks expiry on the coarse clock.
                clock: configuration.clock is SystemClock ? SystemClock(coarseExpiryChecks: true) : configuration.clock
            )
        )
        let persistent = configuration.persistent
        blobs = try FileDataSource(
            configuration: .init(
                location: persistent.location,
                identifier: persistent.identifier,
                maxSize: persistent.maxSize,
                countLimit: persistent.maxCount,
                durability: persistent.durability,
                clock: configuration.clock,
                verifiesContent: persistent.verifiesContent
            )
        )
        // The fetches waiting for room may hold the limit, and at least the default limit: a small limit (zero
        // writes one download at a time) still lets a burst of fetches wait their turn.
        writes = WriteBehind(
            limit: persistent.writeBehindLimit,
            waitingLimit: max(persistent.writeBehindLimit, persistent.leastWaitingLimit)
        )
        moveLegacyFreshnessRecords()
        link.cache = self
    }

    /// Creates a cache with its own client; relative URLs resolve against `baseURL`.
    ///
    /// - Parameters:
    ///   - baseURL: The URL relative URLs are resolved against.
    ///   - configuration: The layers, policies and clock.
    /// - Throws: As ``init(using:baseURL:configuration:)``.
    public convenience init(baseURL: URL, configuration: Configuration = Configuration()) throws {
        try self.init(using: HTTPClient(), baseURL: baseURL, configuration: configuration)
    }

    /// The bytes of a fetch and where they came from.
    public struct Fetched: Sendable {
        /// The blob.
        public var data: Data

        /// What answered: `.memory` (the ephemeral layer), `.file` (the persistent layer, fresh), `.network` (a
        /// download), `.revalidated` (the persistent layer, after a `304`) or `.stale` (the persistent layer,
        /// stale: inside its response's `stale-while-revalidate` window while it is revalidated in the
        /// background, or because the network failed; see <doc:StaleBlobs>).
        public var origin: DataOrigin

        /// Creates a value.
        ///
        /// - Parameters:
        ///   - data: The blob.
        ///   - origin: What answered.
        public init(data: Data, origin: DataOrigin) {
            self.data = data
            self.origin = origin
        }

        /// Creates a value from a layer of the earlier type.
        ///
        /// - Parameters:
        ///   - data: The blob.
        ///   - layer: Where it came from.
        @available(*, deprecated, message: "Pass a DataOrigin")
        public init(data: Data, layer: Layer) {
            self.init(data: data, origin: layer.origin)
        }

        /// The layer that answered, as the earlier type; `.network` for an origin it cannot name.
        @available(*, deprecated, message: "Use origin, a DataOrigin")
        public var layer: Layer {
            get { Layer(origin) ?? .network }
            set { origin = newValue.origin }
        }
    }

    /// Returns the blob at `url` with the layer that answered: ephemeral, then persistent, then the network.
    ///
    /// A fragment (`#…`) is never sent: URLs that differ only in theirs are one blob.
    ///
    /// - Parameter url: An absolute URL, or one relative to ``baseURL``.
    /// - Throws: ``Strata/StrataError``: the download's error (``Strata/StrataError/Code/notFound`` for a
    ///   404, ``Strata/StrataError/Code/network``, ``Strata/StrataError/Code/unexpectedResponse`` …),
    ///   ``Strata/StrataError/Code/invalidArgument`` for a relative URL without a base URL, and
    ///   ``Strata/StrataError/Code/cacheSyncFailed`` (the downloaded data as its payload) when the download
    ///   succeeded but could not be stored on disk.
    @inlinable
    nonisolated(nonsending) public func fetchWithLayer(from url: URL) async throws -> Fetched {
        // A memory hit is synchronous, inlined into the caller and run on the caller's executor (no hop, even
        // from the main actor); a miss continues off it, in `fetchBelowMemory`, through the repository chain.
        // With plugins, every fetch takes the chain, so they see the memory layer's calls too.
        if let data = memoryHit(url) { return Fetched(data: data, origin: .memory) }
        return try await fetchBelowMemory(url)
    }

    /// Returns the blob at `url`: ephemeral, then persistent, then the network.
    ///
    /// - Parameter url: An absolute URL, or one relative to ``baseURL``.
    /// - Throws: As ``fetchWithLayer(from:)``.
    @inlinable
    nonisolated(nonsending) public func fetch(from url: URL) async throws -> Data {
        if let data = memoryHit(url) { return data }
        return try await fetchBelowMemory(url).data
    }

    /// The fresh blob for `url` in the ephemeral layer, or `nil` (also for a URL that does not resolve, and
    /// always when the cache has plugins, which must see the memory layer's call).
    @usableFromInline
    func memoryHit(_ url: URL) -> Data? {
        // Every key in the ephemeral layer is an absolute URL string, and a URL's absolute string is what
        // ``resolve(_:)`` would key it by, whenever it is absolute and has no fragment. A URL relative to nothing
        // yields a string without a scheme, and one with a fragment a string with `#`, which no key equals: it
        // misses here and the slow path resolves it (against ``baseURL``, without the fragment).
        hasPlugins ? nil : ephemeralHit(url.absoluteString)
    }

    /// A fetch after a memory miss: the repository chain, memory over file over the network, where concurrent
    /// downloads of one URL share one request.
    @usableFromInline
    @concurrent func fetchBelowMemory(_ url: URL) async throws -> Fetched {
        let key = try resolve(url).absoluteString
        // Without plugins, a fresh blob in memory (under the resolved key) or on disk is read here, as the chain's
        // tiers would read it and copy it up, without the two repositories' calls around them.
        if !hasPlugins {
            if let data = ephemeralHit(key) { return Fetched(data: data, origin: .memory) }
            if let data = persistentHitCopiedUp(key) { return Fetched(data: data, origin: .file) }
        }
        return try await fetchThroughChain(key)
    }

    /// Returns a fresh cached blob without touching the network, or `nil` when neither layer holds one.
    ///
    /// A persistent hit is copied into the ephemeral layer, and hits extend lifetimes, as in a fetch.
    ///
    /// - Parameter url: An absolute URL, or one relative to ``baseURL``.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for a relative URL without a base URL.
    public func cached(from url: URL) throws -> Data? {
        let key = try resolve(url).absoluteString
        return ephemeralHit(key) ?? persistentHitCopiedUp(key)
    }

    /// Whether either layer holds a fresh blob for `url`; reads no blob from disk and extends no lifetime.
    ///
    /// - Parameter url: An absolute URL, or one relative to ``baseURL``.
    public func contains(_ url: URL) -> Bool {
        guard let key = try? resolve(url).absoluteString else { return false }
        // The memory source holds a blob until exactly its expiry: what it returns is fresh.
        if memory.value(forKey: key) != nil { return true }
        let now = configuration.clock.now()
        if let write = writes.pending(forKey: key) {
            return write.record.freshUntil > now && answersRequests(write.record, forKey: key)
        }
        guard let info = blobs.info(forKey: key), let record = record(for: info) else { return false }
        return record.freshUntil > now && answersRequests(record, forKey: key)
    }

    /// Removes the blob for `url` from both layers.
    ///
    /// - Parameter url: An absolute URL, or one relative to ``baseURL``.
    /// - Throws: ``Strata/StrataError/Code/io`` when a file cannot be removed.
    public func remove(_ url: URL) throws {
        let key = try resolve(url).absoluteString
        try removing(KeyQuery(key)) {
            clearMemory(key)
            writes.drop(key)
            try blobs.removeValue(forKey: key)
            // A fetch that read the disk before the removal may have copied the blob up meanwhile.
            clearMemory(key)
        }
    }

    /// Runs a removal of the blobs `query` names as a write through both repositories of the chain: a fetch on its way
    /// (a download, a revalidation) stores nothing it read before, and a fetch that starts meanwhile shares no read
    /// begun before it (it makes its own request).
    func removing(_ query: any Query, _ removal: () throws -> Void) rethrows {
        let repositories = (chain, chain.main.repository)
        repositories.0.beginHeldWrite(query)
        repositories.1.beginHeldWrite(query)
        defer {
            repositories.0.endHeldWrite(query)
            repositories.1.endHeldWrite(query)
        }
        try removal()
    }

    /// The absolute URL `url` names, without its fragment: a fragment is never sent, so URLs that differ only in
    /// one name the same blob, kept under one key.
    func resolve(_ url: URL) throws -> URL {
        let absolute: URL
        if url.scheme != nil {
            absolute = url.absoluteURL
        } else {
            guard let baseURL, let resolved = URL(string: url.relativeString, relativeTo: baseURL) else {
                throw StrataError(
                    .invalidArgument,
                    "\(url.describedForErrors) is relative and the BlobCache has no base URL"
                )
            }
            absolute = resolved.absoluteURL
        }
        return absolute.withoutFragment
    }
}
