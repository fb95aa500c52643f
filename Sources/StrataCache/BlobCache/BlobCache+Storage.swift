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
    /// absent or expired (an expired blob is removed).
    func ephemeralHit(_ key: String, extending: Bool = true) -> Data? {
        guard var blob = memory.value(forKey: key) else { return nil }
        let now = configuration.clock.now()
        guard blob.expiresAt > now else {
            memory.removeValue(forKey: key)
            return nil
        }
        if extending,
            let extended = configuration.ephemeral.lifetimeExtension.extendedExpiry(
                expiresAt: blob.expiresAt,
                lifetime: blob.lifetime,
                now: now
            )
        {
            blob.expiresAt = extended
            putInMemory(blob, forKey: key, now: now)
        }
        return blob.data
    }

    /// The fresh blob under `key` on disk, after applying the persistent extension policy and copying it up
    /// into memory; `nil` when absent, stale or damaged.
    func persistentHit(_ key: String) -> (data: Data, record: FreshnessRecord)? {
        let now = configuration.clock.now()
        guard let info = blobs.info(forKey: key), var record = record(for: info), record.freshUntil > now,
            let data = blobs.data(forKey: key)
        else { return nil }
        let lifetime = Duration.seconds(record.lifetime)
        if let extended = configuration.persistent.lifetimeExtension.extendedExpiry(
            expiresAt: record.freshUntil,
            lifetime: lifetime,
            now: now
        ) {
            record.freshUntil = extended
            // Best effort: a lost extension only means an earlier revalidation, never wrong data.
            _ = try? freshness.setData(record.encoded(), forKey: key)
        }
        copyUp(data, info: info, record: record, now: now)
        return (data, record)
    }

    /// The stale (or damaged-record) entry under `key` on disk with its bytes, for revalidation or
    /// serve-stale; `nil` when there is none or its file is damaged.
    func persistentEntry(_ key: String) -> PersistentEntry? {
        guard let info = blobs.info(forKey: key), let data = blobs.data(forKey: key) else { return nil }
        return PersistentEntry(data: data, info: info, record: record(for: info))
    }

    /// The freshness record of a blob, if it belongs to this version of it.
    func record(for info: FileEntryInfo) -> FreshnessRecord? {
        guard let bytes = freshness.data(forKey: info.key), let record = FreshnessRecord.decode(bytes),
            record.contentHash == info.contentHash
        else { return nil }
        return record
    }

    /// Copies a persistent blob into memory for the ephemeral layer's lifetime, never beyond its persistent
    /// freshness.
    func copyUp(_ data: Data, info: FileEntryInfo, record: FreshnessRecord, now: Date) {
        let ephemeralExpiry = now.addingTimeInterval(configuration.ephemeral.initialLifetime.timeInterval)
        let expiresAt = min(ephemeralExpiry, record.freshUntil)
        guard expiresAt > now else { return }
        let blob = CachedBlob(
            data: data,
            expiresAt: expiresAt,
            lifetime: .seconds(expiresAt.timeIntervalSince(now)),
            eTag: info.eTag,
            lastModified: info.lastModified
        )
        putInMemory(blob, forKey: info.key, now: now)
    }

    /// Stores a blob in memory; the memory source's own time to live matches the blob's expiry, so its
    /// `removeExpired()` agrees with the blob's metadata.
    func putInMemory(_ blob: CachedBlob, forKey key: String, now: Date) {
        memory.setValue(blob, forKey: key, timeToLive: .seconds(blob.expiresAt.timeIntervalSince(now)))
    }

    /// Writes a blob and then its freshness record; a blob too large for the layer is skipped.
    ///
    /// - Returns: The record written, or `nil` when the blob was too large.
    func storePersistent(
        _ data: Data,
        forKey key: String,
        eTag: String?,
        lastModified: String?,
        makeRecord: (UInt64) -> FreshnessRecord
    ) throws -> FreshnessRecord? {
        do {
            try blobs.setData(data, forKey: key, options: .init(eTag: eTag, lastModified: lastModified))
        } catch let error as StrataError where error.code == .tooLarge {
            forgetPersistent(key)
            return nil
        }
        guard let info = blobs.info(forKey: key) else { return nil }
        let record = makeRecord(info.contentHash)
        try freshness.setData(record.encoded(), forKey: key)
        return record
    }

    /// Removes the blob and record under `key` from disk, if it can: a blob that cannot be removed stays and is
    /// revalidated or replaced by a later fetch.
    func forgetPersistent(_ key: String) {
        _ = try? blobs.removeData(forKey: key)
        _ = try? freshness.removeData(forKey: key)
    }
}
