import Foundation
import Strata
import StrataNetwork

/// What travels through a ``BlobCache``'s repository chain: the bytes, the layer that produced them and what
/// the persistent layer keeps with them.
struct Blob: Sendable {
    /// The bytes.
    var data: Data
    /// What answered: `.file` for a fresh disk hit, `.revalidated` for a stale one (served only after a
    /// `304`), `.network` for a download, `.memory` for a memory hit.
    var origin: DataOrigin
    /// The persistent freshness record; `nil` for a memory hit, or a disk entry whose record is lost.
    var record: FreshnessRecord?
    /// Whether a download may be stored (`no-store` may not).
    var isStorable = true
    /// A download's HTTP lifetime, if its response gave one; the layers' initial lifetimes apply otherwise.
    var httpLifetime: Duration?
    /// The cache's ``BlobCache/removals`` when the blob was read from disk or requested from the network: a removal
    /// since keeps it out of both layers.
    var removalsBefore = 0
    /// For a download when the persistent layer writes behind: the room reserved for it in the write-behind queue
    /// before its write-back takes its key's turn (``BlobFileTier`` takes it over), or `.refused` when the fetches
    /// waiting for room held their limit; `.none` otherwise (the write reserves it then), and for a download that must
    /// not be stored, which reserves none.
    var room = Room.none

    /// Gives back the room reserved for the download, if its write did not take it over (its write-back was
    /// skipped, or failed): at the end of the fetch, rather than when the last copy of the blob goes.
    func releaseRoom() {
        if case .reserved(let room) = room { room.release() }
    }

    /// Room in the write-behind queue, reserved ahead of a download's write-back.
    enum Room: Sendable {
        /// None reserved ahead.
        case none
        /// Reserved, to be taken over by the write.
        case reserved(ReservedRoom)
        /// Refused: the download is not stored on disk.
        case refused
    }

    /// What holding the blob costs in memory, for the memory layer's and the write-behind queue's limits: its bytes
    /// and ``entryOverhead``.
    var footprint: Int { Self.footprint(ofBytes: data.count) }

    /// What a blob of `count` bytes costs in memory: the bytes and ``entryOverhead``.
    static func footprint(ofBytes count: Int) -> Int {
        count > Int.max - entryOverhead ? .max : count + entryOverhead
    }

    /// What an entry costs beside its bytes, counted as 512 bytes (its URL key, its record, the store's node and
    /// index cells): without it, empty bodies (a `204`, an empty `200`) cost nothing, and a byte limit kept any
    /// number of them, for ever in a long-lived process.
    static let entryOverhead = 512
}

extension FreshnessRecord {
    /// The record after a `304` answered at `now`, by the rule every cache renews by
    /// (`HTTPFreshness.renewedFreshUntil`): the 304's `must-revalidate`, `no-cache` and stale windows when it sent
    /// `Cache-Control` (`directives`), and its own freshness (`renewedUntil`), else the stored lifetime again; without
    /// `Cache-Control` the stored directives stand, a stored `no-cache` stays stale, and the 304's freshness lasts no
    /// longer than the stored lifetime.
    func renewed(until renewedUntil: Date?, directives: RenewalDirectives? = nil, now: Date) -> FreshnessRecord {
        var record = self
        if let directives {
            record.mustRevalidate = directives.forbidsServingStale
            record.noCache = directives.requiresRevalidation
            // A stored window the 304 drops becomes one of zero seconds, which serves nothing stale: the record keeps
            // its length, so the entry's trailer is rewritten in place rather than the blob copied to a new file.
            record.staleWhileRevalidate =
                directives.staleWhileRevalidate?.timeInterval ?? (staleWhileRevalidate == nil ? nil : 0)
            record.staleIfError = directives.staleIfError?.timeInterval
        }
        let freshUntil = HTTPFreshness.renewedFreshUntil(
            notModified: renewedUntil,
            sendsCacheControl: directives != nil,
            stored: now.addingTimeInterval(noCache ? 0 : lifetime),
            storedRequiresRevalidation: noCache,
            now: now
        )
        record.lifetime = max(0, freshUntil.map { $0.timeIntervalSince(now) } ?? 0)
        record.freshUntil = now.addingTimeInterval(record.lifetime)
        return record
    }
}

extension BlobCache {
    /// A tier's miss: it never leaves the chain (the repository asks the next tier), so its message names no key
    /// and costs no formatting.
    static let tierMiss = StrataError(.notFound, "The layer holds no fresh blob for this URL")

    /// The key of a blob in the chain: its absolute URL.
    static func key(of query: any Query) throws -> String {
        guard let query = query as? KeyQuery else { throw StrataError.queryNotSupported(query, by: BlobCache.self) }
        return query.key
    }
}

/// The tiers' way back to their ``BlobCache``, which owns them: weak, so that the chain does not keep a
/// released cache (and its folder's claim) alive.
///
/// `@unchecked Sendable`: ``cache`` is written once, in the cache's initialiser before the chain can be
/// reached by any other thread, and only read after.
final class BlobCacheLink: @unchecked Sendable {
    weak var cache: BlobCache?
}

/// A layer of a ``BlobCache`` as a data source of ``Blob``s keyed by URL (`KeyQuery`): one value per key, no
/// lists.
protocol BlobTier: GetDataSource where Value == Blob {
    /// The cache whose layers the tier reads and writes.
    var link: BlobCacheLink { get }
}

extension BlobTier {
    /// The cache and the key a call is for.
    ///
    /// - Throws: ``Strata/StrataError/Code/cancelled`` once the cache is released, and
    ///   ``Strata/StrataError/Code/queryNotSupported`` for a query other than a `KeyQuery`.
    func target(of query: any Query) throws -> (BlobCache, String) {
        guard let cache = link.cache else { throw StrataError(.cancelled, "The BlobCache was released") }
        return (cache, try BlobCache.key(of: query))
    }

    func get(_ query: any Query) async throws -> Blob {
        try await getEntry(query).value
    }

    func getAll(_ query: any Query) async throws -> [Blob] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }
}

extension BlobTier where Self: PutDataSource {
    func put(_ value: Blob, in query: any Query) async throws -> Blob {
        try await putEntry(StoredEntry(value: value, metadata: EntryMetadata()), in: query)
    }

    func putAll(_ values: [Blob], in query: any Query) async throws -> [Blob] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }
}
