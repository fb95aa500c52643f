import Foundation
import Strata
import StrataFile

/// A ``BlobCache``'s persistent layer as a data source: the cache of the chain's lower repository.
///
/// A read answers the entry with its freshness as metadata (`freshUntil`, `ETag`, `Last-Modified`), fresh or
/// stale, so the freshness validator in front of it decides; a fresh hit applies the layer's lifetime
/// extension. A stale entry is answered only when it can serve: with a validator to revalidate, or for
/// serve-stale-on-error. Writes go to disk before returning or through the write-behind queue; a renewal after
/// a `304` renews the record in the blob's entry and never rewrites the blob.
struct BlobFileTier: BlobTier, PutDataSource, DeleteDataSource {
    let link: BlobCacheLink

    var origin: DataOrigin { .file }

    func getEntry(_ query: any Query) async throws -> StoredEntry<Blob> {
        let (cache, key) = try target(of: query)
        let removalsBefore = cache.removals.mark(key)
        // A stale download still queued is written first, so revalidation sees its validators.
        var hit = cache.persistentHit(key)
        if hit == nil, cache.writes.pending(forKey: key) != nil {
            await cache.writes.settle(key)
            // The wait ends early for a caller that gave up (a disk may hang): it goes no further.
            if Task.isCancelled {
                throw StrataError(.cancelled, "The read of \(key.describedForErrorsAsURL) was cancelled")
            }
            hit = cache.persistentHit(key)
        }
        if let hit {
            let blob = Blob(data: hit.data, origin: .file, record: hit.record, removalsBefore: removalsBefore)
            return StoredEntry(value: blob, metadata: hit.metadata)
        }
        guard let stale = cache.usableStaleEntry(key) else { throw BlobCache.tierMiss }
        // Stale since its record's freshness ended (where a stale-while-revalidate window starts).
        let staleSince = min(stale.record.freshUntil, cache.configuration.clock.now())
        return StoredEntry(
            value: Blob(data: stale.data, origin: .revalidated, record: stale.record, removalsBefore: removalsBefore),
            metadata: EntryMetadata(
                freshUntil: staleSince,
                eTag: stale.info.eTag,
                lastModified: stale.info.lastModified
            )
        )
    }

    /// Stores a download, or a stale blob a `304` renewed whose entry is gone; nothing when the cache removed blobs
    /// since it was read or requested (a removed blob never comes back), and the write is undone when a removal ran
    /// meanwhile.
    func putEntry(_ entry: StoredEntry<Blob>, in query: any Query) async throws -> Blob {
        let (cache, key) = try target(of: query)
        let removalsBefore = entry.value.removalsBefore
        // A download that must not be stored drops the older copy whatever was removed meanwhile.
        if entry.value.isStorable, cache.removals.moved(since: removalsBefore, key) { return entry.value }
        // A disk slower than the network fills the queue: the fetch waited for room rather than let it grow (the
        // network tier reserved it for a download), or, when the fetches waiting hold as much again (a stalled disk),
        // stores nothing on disk (a failed write), and the older copy goes after the writes ahead, never served in
        // place of this one (unless the fetch was cancelled meanwhile). A download that must not be stored needs no room: it only drops the older copy.
        var reserved = 0
        if cache.configuration.persistent.writes == .behind, entry.value.isStorable {
            switch entry.value.room {
            case .reserved(let room): reserved = room.take()
            case .refused:
                // A caller that gave up waiting (a background revalidation cancelled) leaves the disk as it was: the
                // stale copy keeps serving its windows, and a later fetch revalidates it.
                if !Task.isCancelled { cache.forgetPersistentBehind(key) }
                return entry.value
            case .none:
                // A stale blob a 304 renewed whose entry is gone (rare): written only when its room is free at once. It
                // holds its key's turn here, and a download waiting for room may wait for that turn next.
                guard let room = cache.writes.reserveRoomIfItFits(for: entry.value.footprint) else {
                    cache.forgetPersistentBehind(key)
                    return entry.value
                }
                reserved = room
            }
        }
        defer { cache.writes.release(reserved) }
        try cache.storePersistent(entry.value, metadata: entry.metadata, forKey: key)
        if cache.removals.moved(since: removalsBefore, key) { cache.forgetEverywhere(key) }
        return entry.value
    }

    func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        let (cache, key) = try target(of: query)
        return try cache.renewPersistent(forKey: key, with: metadata)
    }

    /// Drops the blob from disk and from the write-behind queue: what the chain does when a `304` says it must not
    /// be stored.
    func delete(_ query: any Query) async throws {
        let (cache, key) = try target(of: query)
        cache.forgetEverywhere(key)
    }
}
