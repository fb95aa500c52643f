import Foundation
import Strata

extension BlobCache {
    /// Cleans the ephemeral layer by its ``EphemeralLayer/cleaning`` rule (everything by default): what an app
    /// calls on a memory warning.
    public func purgeEphemeral() {
        switch configuration.ephemeral.cleaning {
        case .all: memory.removeAll()
        case .expiredOnly: memory.removeExpired()
        }
    }

    /// Cleans the persistent layer by its ``PersistentLayer/cleaning`` rule (expired blobs only by default),
    /// then trims it to its limits: what an app calls when it terminates.
    ///
    /// By ``CleaningRule/expiredOnly`` a blob past its freshness stays while it can still be served stale: inside its
    /// response's `stale-while-revalidate` or `stale-if-error` window, or, for a response that gave no
    /// `stale-if-error`, under ``Configuration/servesStaleOnError`` (never under `must-revalidate` or `no-cache`).
    /// A stale blob that only a validator (`ETag`, `Last-Modified`) could renew goes.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when a file cannot be removed.
    public func cleanPersistent() throws {
        switch configuration.persistent.cleaning {
        case .all:
            writes.drop(nil)
            try blobs.removeAll()
        case .expiredOnly:
            let now = configuration.clock.now()
            for key in blobs.sortedKeys() {
                guard let info = blobs.info(forKey: key) else { continue }
                if let record = record(for: info), record.freshUntil > now || servesStale(record, at: now) { continue }
                // Only the blob judged stale: a download or a 304 that replaced or renewed it since stays.
                _ = try blobs.removeValue(forKey: key, ifStill: info)
            }
        }
        try blobs.removeExpired()
    }

    /// Whether the stale blob `record` describes may still be served stale at `now`, in the background of a
    /// revalidation or after an outage: what cleaning by ``CleaningRule/expiredOnly`` keeps.
    private func servesStale(_ record: FreshnessRecord, at now: Date) -> Bool {
        record.servesWhileRevalidating(at: now) || servesIfError(record, at: now)
    }

    /// Cleans both layers, each by its own rule.
    ///
    /// - Throws: As ``cleanPersistent()``.
    public func clean() throws {
        purgeEphemeral()
        try cleanPersistent()
    }

    /// Removes every blob from both layers.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when a file cannot be removed.
    public func removeAll() throws {
        try removing(AllObjectsQuery()) {
            clearMemory(nil)
            writes.drop(nil)
            try blobs.removeAll()
            // A fetch that read the disk before the removal may have copied a blob up meanwhile.
            clearMemory(nil)
        }
    }

    /// The number of blobs in the ephemeral layer, expired ones included until they are read or purged.
    public var ephemeralCount: Int { memory.count }

    /// The number of blobs in the persistent layer, stale ones included until they are cleaned.
    public var persistentCount: Int { blobs.count }
}
