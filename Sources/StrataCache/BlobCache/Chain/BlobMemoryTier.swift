import Foundation
import Strata

/// A ``BlobCache``'s ephemeral layer as a data source: the top of its repository chain.
///
/// A hit applies the layer's lifetime extension; a write keeps a download for its HTTP lifetime (or the
/// layer's initial lifetime) and a blob copied up from disk for the initial lifetime at most, never beyond its
/// persistent freshness.
struct BlobMemoryTier: BlobTier, PutDataSource, DeleteDataSource {
    let link: BlobCacheLink

    var origin: DataOrigin { .memory }

    func getEntry(_ query: any Query) async throws -> StoredEntry<Blob> {
        let (cache, key) = try target(of: query)
        guard let data = cache.ephemeralHit(key) else { throw BlobCache.tierMiss }
        return StoredEntry(value: Blob(data: data, origin: .memory), metadata: EntryMetadata())
    }

    func putEntry(_ entry: StoredEntry<Blob>, in query: any Query) async throws -> Blob {
        let (cache, key) = try target(of: query)
        cache.putInMemory(entry.value, metadata: entry.metadata, forKey: key)
        return entry.value
    }

    /// Drops the blob's copy in memory: what the chain does when a `304` says it must not be stored.
    func delete(_ query: any Query) async throws {
        let (cache, key) = try target(of: query)
        cache.memory.removeValue(forKey: key)
    }
}

extension BlobCache {
    /// Stores what a lower layer answered in memory, as the ephemeral layer's rules say.
    func putInMemory(_ blob: Blob, metadata: EntryMetadata, forKey key: String) {
        let now = configuration.clock.now()
        switch blob.origin {
        case .network:
            let lifetime = blob.httpLifetime ?? configuration.ephemeral.initialLifetime
            guard blob.isStorable, lifetime > .zero else {
                memory.removeValue(forKey: key)
                return
            }
            let expiresAt = now.addingTimeInterval(lifetime.timeInterval)
            putInMemory(
                CachedBlob(data: blob.data, expiresAt: expiresAt, lifetime: lifetime),
                forKey: key,
                now: now,
                readAfter: blob.removalsBefore
            )
        case .revalidated:
            let record = storedRecord(blob.record).renewed(
                until: metadata.freshUntil,
                directives: metadata.renewalDirectives,
                now: now
            )
            copyUp(blob.data, forKey: key, freshUntil: record.freshUntil, now: now, readAfter: blob.removalsBefore)
        case .file:
            guard let freshUntil = metadata.freshUntil else { return }
            copyUp(blob.data, forKey: key, freshUntil: freshUntil, now: now, readAfter: blob.removalsBefore)
        default:
            return
        }
    }
}
