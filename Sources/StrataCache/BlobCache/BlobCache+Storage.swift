import Foundation
import Strata
import StrataFile

extension BlobCache {
    /// A persistent entry as read: its bytes, its file metadata and its freshness record (`nil` when the
    /// record is missing or belongs to another version of the blob, which makes the blob stale).
    struct PersistentEntry {
        var data: Data
        var info: FileEntryInfo
        var record: FreshnessRecord?
    }

    /// The fresh blob under `key` in memory, after applying the ephemeral extension policy; `nil` when
    /// absent or expired.
    ///
    /// The memory source holds each blob until exactly its ``CachedBlob/expiresAt`` (see
    /// ``putInMemory(_:forKey:now:)``) and drops it after, so a blob it returns is fresh: without an
    /// extension policy a hit reads the clock once, inside the memory source.
    func ephemeralHit(_ key: String, extending: Bool = true) -> Data? {
        guard let blob = memory.value(forKey: key) else { return nil }
        guard extending, ephemeralExtends else { return blob.data }
        let now = configuration.clock.now()
        if let extended = configuration.ephemeral.lifetimeExtension.extendedExpiry(
            expiresAt: blob.expiresAt,
            lifetime: blob.lifetime,
            now: now
        ) {
            var renewed = blob
            renewed.expiresAt = extended
            putInMemory(renewed, forKey: key, now: now)
        }
        return blob.data
    }

    /// The fresh blob under `key` on disk, after applying the persistent extension policy and copying it up
    /// into memory; `nil` when absent, stale or damaged.
    func persistentHit(_ key: String) -> (data: Data, record: FreshnessRecord)? {
        let now = configuration.clock.now()
        if let write = queuedWrite(forKey: key) { return queuedHit(write, forKey: key, now: now) }
        guard let info = blobs.info(forKey: key), var record = record(for: info), record.freshUntil > now,
            let data = blobs.value(forKey: key)
        else { return nil }
        let lifetime = Duration.seconds(record.lifetime)
        if let extended = configuration.persistent.lifetimeExtension.extendedExpiry(
            expiresAt: record.freshUntil,
            lifetime: lifetime,
            now: now
        ) {
            record.freshUntil = extended
            record.contentHash = info.contentHash  // an override names the version it belongs to
            // Best effort: a lost extension only means an earlier revalidation, never wrong data.
            _ = try? freshness.setValue(record.encoded(), forKey: key)
        }
        copyUp(data, forKey: key, record: record, now: now)
        return (data, record)
    }

    /// A download not written yet, served as the persistent layer would serve it once written.
    private func queuedHit(_ write: WriteQueue.Write, forKey key: String, now: Date) -> (Data, FreshnessRecord)? {
        var record = write.record
        guard record.freshUntil > now else { return nil }
        if let extended = configuration.persistent.lifetimeExtension.extendedExpiry(
            expiresAt: record.freshUntil,
            lifetime: .seconds(record.lifetime),
            now: now
        ) {
            record.freshUntil = extended
            writeQueue.extend(key, generation: write.generation, to: extended)
        }
        copyUp(write.data, forKey: key, record: record, now: now)
        return (write.data, record)
    }

    /// The stale (or damaged-record) entry under `key` on disk with its bytes, for revalidation or
    /// serve-stale; `nil` when there is none or its file is damaged.
    func persistentEntry(_ key: String) -> PersistentEntry? {
        guard let info = blobs.info(forKey: key), let data = blobs.value(forKey: key) else { return nil }
        return PersistentEntry(data: data, info: info, record: record(for: info))
    }

    /// The freshness record of a blob: the override written by a `304` or an extension when there is one
    /// for this version of the blob, otherwise the record stored in the blob's own entry.
    func record(for info: FileEntryInfo) -> FreshnessRecord? {
        // Without an override, the freshness store's index answers without touching the disk.
        if let bytes = freshness.value(forKey: info.key), let record = FreshnessRecord.decode(bytes),
            record.contentHash == info.contentHash
        {
            return record
        }
        return info.attributes.flatMap(FreshnessRecord.decode)
    }

    /// Copies a persistent blob into memory for the ephemeral layer's lifetime, never beyond its persistent
    /// freshness.
    func copyUp(_ data: Data, forKey key: String, record: FreshnessRecord, now: Date) {
        let ephemeralExpiry = now.addingTimeInterval(configuration.ephemeral.initialLifetime.timeInterval)
        let expiresAt = min(ephemeralExpiry, record.freshUntil)
        guard expiresAt > now else { return }
        let blob = CachedBlob(
            data: data,
            expiresAt: expiresAt,
            lifetime: .seconds(expiresAt.timeIntervalSince(now))
        )
        putInMemory(blob, forKey: key, now: now)
    }

    /// Stores a blob in memory; the memory source's own expiry is the blob's, to the nanosecond, so reads
    /// and `removeExpired()` agree with the blob's metadata.
    func putInMemory(_ blob: CachedBlob, forKey key: String, now: Date) {
        memory.setValue(blob, forKey: key, storedAt: now, expiresAt: blob.expiresAt)
    }

    /// Writes a blob with its freshness record in one entry, after removing any override of an earlier
    /// version's record; a blob too large for the layer is skipped.
    ///
    /// - Returns: Whether the blob was stored (`false` when it was too large).
    @discardableResult
    func storePersistent(
        _ data: Data,
        forKey key: String,
        eTag: String?,
        lastModified: String?,
        record: FreshnessRecord
    ) throws -> Bool {
        // First, so that no crash can leave an older override beside the new blob (a lookup in the index
        // when there is none).
        try freshness.removeValue(forKey: key)
        do {
            let options = FileDataSource.EntryOptions(
                eTag: eTag,
                lastModified: lastModified,
                attributes: record.encoded()
            )
            try blobs.setValue(data, forKey: key, options: options)
        } catch let error as StrataError where error.code == .tooLarge {
            forgetPersistent(key)
            return false
        }
        return true
    }

    /// Removes the blob and record under `key` from disk, if it can: a blob that cannot be removed stays and is
    /// revalidated or replaced by a later fetch.
    func forgetPersistent(_ key: String) {
        _ = try? blobs.removeValue(forKey: key)
        _ = try? freshness.removeValue(forKey: key)
    }
}
