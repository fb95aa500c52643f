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
                if let record = record(for: info), record.freshUntil > now { continue }
                // Only the blob judged stale: a download or a 304 that replaced or renewed it since stays.
                _ = try blobs.removeValue(forKey: key, ifStill: info)
            }
        }
        try blobs.removeExpired()
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
