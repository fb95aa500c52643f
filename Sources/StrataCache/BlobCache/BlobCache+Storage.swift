import Foundation
import Strata
import StrataFile

extension BlobCache {
    /// A persistent entry as read: its bytes, its file metadata and its freshness record.
    struct PersistentEntry {
        var data: Data
        var info: FileEntryInfo
        var record: FreshnessRecord
    }

    /// A fresh persistent hit: the bytes, the record (extended if the policy says so) and the validators.
    struct PersistentHit {
        var data: Data
        var record: FreshnessRecord
        var eTag: String?
        var lastModified: String?

        /// The metadata the chain carries for it: fresh until the record says, with its validators.
        var metadata: EntryMetadata {
            EntryMetadata(freshUntil: record.freshUntil, eTag: eTag, lastModified: lastModified)
        }
    }

    /// The fresh blob under `key` in memory, after applying the ephemeral extension policy; `nil` when
    /// absent or expired.
    ///
    /// The memory source holds each blob until exactly its ``CachedBlob/expiresAt`` (see
    /// ``putInMemory(_:forKey:now:)``) and drops it after, so a blob it returns is fresh: without an
    /// extension policy a hit reads the clock once, inside the memory source.
    func ephemeralHit(_ key: String, extending: Bool = true) -> Data? {
        let extends = extending && ephemeralExtends
        // Read before the blob, so a removal after the read stops the renewed blob going back in.
        let removalsBefore = extends ? removals.mark(key) : 0
        guard let blob = memory.value(forKey: key) else { return nil }
        guard extends else { return blob.data }
        let now = configuration.clock.now()
        if let extended = configuration.ephemeral.lifetimeExtension.extendedExpiry(
            expiresAt: blob.expiresAt,
            lifetime: blob.lifetime,
            now: now
        ) {
            var renewed = blob
            renewed.expiresAt = extended
            // Only over the blob read: every put in memory runs under the guard's lock, so a newer blob stored since
            // (a download) is seen here and keeps its bytes and lifetime.
            removals.putBack(readAt: removalsBefore, key) {
                guard let current = memory.value(forKey: key), current.isSameVersion(as: blob) else { return }
                putInMemory(renewed, forKey: key, now: now)
            }
        }
        return blob.data
    }

    /// The fresh blob under `key` on disk or in the write-behind queue, after applying the persistent extension
    /// policy; `nil` when absent, stale or damaged. Copies nothing into memory (the caller decides).
    func persistentHit(_ key: String) -> PersistentHit? {
        let now = configuration.clock.now()
        if let write = writes.pending(forKey: key) { return queuedHit(write, forKey: key, now: now) }
        guard let info = blobs.info(forKey: key), var record = record(for: info), record.freshUntil > now,
            answersRequests(record, forKey: key), let data = blobs.value(forKey: key)
        else { return nil }
        if let extended = configuration.persistent.lifetimeExtension.extendedExpiry(
            expiresAt: record.freshUntil,
            lifetime: .seconds(record.lifetime),
            now: now
        ) {
            record.freshUntil = extended
            // Best effort: a lost extension only means an earlier revalidation, never wrong data.
            _ = try? renew(record, of: info)
        }
        return PersistentHit(data: data, record: record, eTag: info.eTag, lastModified: info.lastModified)
    }

    /// The fresh blob under `key` on disk, copied up into memory; `nil` when there is none.
    func persistentHitCopiedUp(_ key: String) -> Data? {
        let removalsBefore = removals.mark(key)
        guard let hit = persistentHit(key) else { return nil }
        copyUp(
            hit.data,
            forKey: key,
            freshUntil: hit.record.freshUntil,
            now: configuration.clock.now(),
            readAfter: removalsBefore
        )
        return hit.data
    }

    /// A download not written yet, served as the persistent layer would serve it once written.
    private func queuedHit(_ write: QueuedWrite, forKey key: String, now: Date) -> PersistentHit? {
        var record = write.record
        guard record.freshUntil > now, answersRequests(record, forKey: key) else { return nil }
        if let extended = configuration.persistent.lifetimeExtension.extendedExpiry(
            expiresAt: record.freshUntil,
            lifetime: .seconds(record.lifetime),
            now: now
        ) {
            record.freshUntil = extended
            // Only on the write read: a newer download queued since (a `no-cache` one, say) keeps its own lifetime.
            writes.update(forKey: key) { pending in
                guard pending.isSameVersion(as: write) else { return }
                pending.record.freshUntil = extended
            }
        }
        return PersistentHit(data: write.data, record: record, eTag: write.eTag, lastModified: write.lastModified)
    }

    /// The stale entry under `key` on disk with its bytes, for revalidation or serve-stale; `nil` when there is none,
    /// its file is damaged, its record is lost or cannot be read, or it answered a request that sent other values in
    /// the fields its response varied on (``answersRequests(_:forKey:)``).
    func persistentEntry(_ key: String) -> PersistentEntry? {
        guard let info = blobs.info(forKey: key), let record = record(for: info), answersRequests(record, forKey: key),
            let data = blobs.value(forKey: key)
        else { return nil }
        return PersistentEntry(data: data, info: info, record: record)
    }

    /// The stale entry under `key` when it can serve: revalidation needs a validator, serve-stale the option
    /// or the response's own `stale-while-revalidate` or `stale-if-error` window.
    func usableStaleEntry(_ key: String) -> PersistentEntry? {
        guard let info = blobs.info(forKey: key) else { return nil }
        let hasValidators = info.eTag != nil || info.lastModified != nil
        guard hasValidators || configuration.servesStaleOnError || servesStaleByItsOwnWindows(info) else {
            return nil
        }
        return persistentEntry(key)
    }

    /// Whether the response of a stale entry without validators lets it be served now: inside its
    /// `stale-while-revalidate` or `stale-if-error` window.
    private func servesStaleByItsOwnWindows(_ info: FileEntryInfo) -> Bool {
        guard let record = record(for: info) else { return false }
        let now = configuration.clock.now()
        return record.servesWhileRevalidating(at: now) || record.servesIfError(at: now) == true
    }

    /// The freshness record of a blob: the one stored in its own entry's attributes, kept in the store's index
    /// (no read of the disk), as written with the blob or renewed since by a `304` or an extension.
    func record(for info: FileEntryInfo) -> FreshnessRecord? {
        info.attributes.flatMap(FreshnessRecord.decode)
    }

    /// Renews the freshness record in the entry of the blob version `info` describes: one rewrite of the entry's
    /// trailer, never of the blob. Returns `false` when the blob is gone, another version replaced it, or its record
    /// was renewed since `info` was read (a `304`, an extension): a record made from an older read never replaces a
    /// newer one's directives.
    func renew(_ record: FreshnessRecord, of info: FileEntryInfo) throws -> Bool {
        var record = record
        record.contentHash = info.contentHash  // the record names the version it belongs to
        // Only over the version and the record read, checked by the store under its lock: a write of the same
        // bytes since (a newer download's directives) or another renewal keeps what it wrote.
        return try blobs.renewMetadata(
            EntryMetadata(
                expiresAt: info.expiresAt,
                freshUntil: info.freshUntil,
                eTag: info.eTag,
                lastModified: info.lastModified
            ),
            attributes: record.encoded(),
            ifContentHash: info.contentHash,
            ifAttributes: info.attributes,
            forKey: info.key
        )
    }

    /// A stored record, or for a blob whose record is lost one with the persistent layer's initial lifetime.
    func storedRecord(_ record: FreshnessRecord?) -> FreshnessRecord {
        record
            ?? FreshnessRecord(
                freshUntil: .distantPast,
                lifetime: configuration.persistent.initialLifetime.timeInterval,
                staleIfError: nil,
                mustRevalidate: false,
                noCache: false,
                contentHash: 0
            )
    }

    /// Copies a persistent blob into memory for the ephemeral layer's lifetime, never beyond its persistent
    /// freshness.
    func copyUp(_ data: Data, forKey key: String, freshUntil: Date, now: Date, readAfter removalsBefore: Int) {
        let ephemeralExpiry = now.addingTimeInterval(configuration.ephemeral.initialLifetime.timeInterval)
        let expiresAt = min(ephemeralExpiry, freshUntil)
        guard expiresAt > now else { return }
        let blob = CachedBlob(
            data: data,
            expiresAt: expiresAt,
            lifetime: .seconds(expiresAt.timeIntervalSince(now))
        )
        putInMemory(blob, forKey: key, now: now, readAfter: removalsBefore)
    }

    /// Puts back into memory a blob read (from disk, or from memory) when ``removals`` was `removalsBefore`, unless
    /// a removal has cleared memory since: a removed blob never comes back.
    func putInMemory(_ blob: CachedBlob, forKey key: String, now: Date, readAfter removalsBefore: Int) {
        removals.putBack(readAt: removalsBefore, key) { putInMemory(blob, forKey: key, now: now) }
    }

    /// Removes `key`'s blob from memory (every blob for `nil`) and counts a removal, so a blob read before it is
    /// not put back.
    func clearMemory(_ key: String?) {
        removals.write(key) { if let key { memory.removeValue(forKey: key) } else { memory.removeAll() } }
    }

    /// Stores a blob in memory; the memory source's own expiry is the blob's, to the nanosecond, so reads
    /// and `removeExpired()` agree with the blob's metadata.
    func putInMemory(_ blob: CachedBlob, forKey key: String, now: Date) {
        memory.setValue(blob, forKey: key, storedAt: now, expiresAt: blob.expiresAt)
    }

    /// Stores what the network answered on disk, now or through the write-behind queue; a `no-store` answer
    /// removes what was stored instead.
    func storePersistent(_ blob: Blob, metadata: EntryMetadata, forKey key: String) throws {
        guard blob.isStorable, let record = blob.record else {
            // Never stored; an older copy must not be served in its place later.
            forgetEverywhere(key)
            return
        }
        let write = QueuedWrite(
            data: blob.data,
            eTag: metadata.eTag,
            lastModified: metadata.lastModified,
            record: record
        )
        guard configuration.persistent.writes == .beforeReturning else {
            writes.enqueue(write, forKey: key, cost: Blob.footprint(ofBytes: write.data.count)) { [self] write in
                try writePersistent(write, forKey: key)
            }
            return
        }
        do {
            try writePersistent(write, forKey: key)
        } catch {
            throw StrataError(
                .cacheSyncFailed,
                "Storing the download of \(key.describedForErrorsAsURL) on disk failed",
                underlying: error,
                payload: blob.data
            )
        }
    }

    /// Writes a blob with its freshness record in one entry; a blob too large for the layer is skipped.
    func writePersistent(_ write: QueuedWrite, forKey key: String) throws {
        do {
            let options = FileDataSource.EntryOptions(
                eTag: write.eTag,
                lastModified: write.lastModified,
                attributes: write.record.encoded()
            )
            try blobs.setValue(write.data, forKey: key, options: options)
        } catch let error as StrataError where error.code == .tooLarge {
            forgetPersistent(key)
        }
    }

    /// Renews a stale blob after a `304`: its entry's freshness record (until the renewal's `freshUntil`, with the
    /// 304's stale-serving directives, if it gave them), never the blob. Returns `false` when the blob is gone.
    ///
    /// Only the version the 304 confirmed is renewed (``Strata/EntryMetadata/renews(entryWithETag:lastModified:)``):
    /// a newer blob another fetch stored meanwhile keeps its own record, and the answer is `true`, so the chain does
    /// not store the older blob over it. The renewal's write names the version checked (its content hash).
    func renewPersistent(forKey key: String, with renewal: EntryMetadata) throws -> Bool {
        // Read again when the record changed under the renewal (an extension): the 304's directives still land.
        for _ in 0..<3 {
            guard let info = blobs.info(forKey: key) else { return false }
            guard renewal.renews(entryWithETag: info.eTag, lastModified: info.lastModified) else { return true }
            let now = configuration.clock.now()
            let renewed = storedRecord(record(for: info)).renewed(
                until: renewal.freshUntil,
                directives: renewal.renewalDirectives,
                now: now
            )
            if try renew(renewed, of: info) { return true }
        }
        return false
    }

    /// Removes the blob under `key` from disk and from the write-behind queue: a write of it running now is followed
    /// by a removal, queued, so nothing here waits.
    func forgetEverywhere(_ key: String) {
        if writes.cancel(key) {
            writes.enqueue(.removal, forKey: key) { [self] _ in forgetPersistent(key) }
        }
        forgetPersistent(key)
    }

    /// Forgets the blob under `key` without touching the disk now: its queued write goes, and its removal is queued
    /// behind the writes ahead (reads see the removal at once).
    func forgetPersistentBehind(_ key: String) {
        _ = writes.cancel(key)
        writes.enqueue(.removal, forKey: key) { [self] _ in forgetPersistent(key) }
    }

    /// Removes the blob and record under `key` from disk, if it can: a blob that cannot be removed stays and is
    /// revalidated or replaced by a later fetch.
    func forgetPersistent(_ key: String) {
        _ = try? blobs.removeValue(forKey: key)
    }
}
