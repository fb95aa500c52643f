import Foundation
import Strata
import StrataFile

extension BlobCache {
    /// The settings of a ``BlobCache``'s in-memory layer: a `MemoryDataSource`.
    ///
    /// The layer starts empty in every process.
    public struct EphemeralLayer: Sendable {
        /// The most blobs kept; `nil` for no limit.
        public var countLimit: Int?

        /// The most bytes kept: each blob's size and 512 bytes for its entry (so that empty bodies are bounded too);
        /// `nil` for no limit.
        public var costLimit: Int?

        /// How long a downloaded blob lives here when its response gives no freshness; a blob copied up from
        /// the persistent layer lives this long at most, and never beyond its persistent freshness.
        public var initialLifetime: Duration

        /// When a hit pushes back a blob's expiry.
        public var lifetimeExtension: LifetimeExtension

        /// What ``BlobCache/purgeEphemeral()`` removes: ``CleaningRule/all`` by default.
        public var cleaning: CleaningRule

        /// Creates the settings.
        ///
        /// - Parameters:
        ///   - countLimit: The most blobs kept.
        ///   - costLimit: The most bytes kept; 64 MiB by default.
        ///   - initialLifetime: The lifetime of a blob whose response gives none; 5 minutes by default.
        ///   - lifetimeExtension: When a hit pushes back the expiry.
        ///   - cleaning: What a purge removes.
        public init(
            countLimit: Int? = nil,
            costLimit: Int? = 64 << 20,
            initialLifetime: Duration = .seconds(300),
            lifetimeExtension: LifetimeExtension = .none,
            cleaning: CleaningRule = .all
        ) {
            self.countLimit = countLimit
            self.costLimit = costLimit
            self.initialLifetime = initialLifetime
            self.lifetimeExtension = lifetimeExtension
            self.cleaning = cleaning
        }
    }

    /// The settings of a ``BlobCache``'s on-disk layer: a `FileDataSource`.
    ///
    /// The blobs live in `location/identifier`, one file each, with their validators and freshness in the
    /// file's metadata. A `304` or a lifetime extension never rewrites a blob: it rewrites that metadata, the
    /// file's trailer (a freshness record of a few dozen bytes in the entry's attributes), in place, and only
    /// while the entry still holds the content the record names. Earlier versions kept the record in a second
    /// store, `location/identifier.freshness`, whose records are moved into the blobs' entries at open. See
    /// ``writes`` for when a download is written.
    public struct PersistentLayer: Sendable {
        /// The folder that holds the layer's folders.
        public var location: FileDataSource.Location

        /// The name of the layer's folder; unique among live caches.
        public var identifier: String

        /// The most bytes of blobs kept; `nil` for no limit. A larger blob is kept in memory only.
        public var maxSize: Int?

        /// The most blobs kept; `nil` for no limit.
        public var maxCount: Int?

        /// What a completed write survives: `.atomic` by default — a new file renamed over the blob's, without
        /// `fsync`, so a crash of the process loses nothing written and a power cut may lose recent blobs (never
        /// leaves a damaged one served: it is a miss, downloaded again). `.durable` flushes every write, which
        /// costs a cache more than the download it saves.
        public var durability: StoreDurability

        /// How long a downloaded blob is fresh here when its response gives no freshness.
        public var initialLifetime: Duration

        /// When a hit pushes back a blob's expiry.
        public var lifetimeExtension: LifetimeExtension

        /// What ``BlobCache/cleanPersistent()`` removes: ``CleaningRule/expiredOnly`` by default.
        public var cleaning: CleaningRule

        /// Whether a download is written before the fetch returns (the default) or after it.
        public var writes: PersistentWrites

        /// Whether every read of a blob from disk checks its bytes against the content checksum stored with
        /// them; on by default.
        ///
        /// On, a blob damaged on disk (bit rot, a torn write, a file changed behind the cache) is a miss: it is
        /// removed and downloaded again, never served. The check reads every byte once more — about as much as
        /// copying the blob — so turning it off makes a disk hit of a large blob cheaper, at the price of
        /// serving damaged bytes as they are. The checksum is written either way, so the setting can change
        /// between launches.
        public var verifiesContent: Bool

        /// The most bytes of downloads waiting to be written (``PersistentWrites/behind``), each counted with 512
        /// bytes for its entry (as in the memory layer's ``EphemeralLayer/costLimit``); 64 MiB by default.
        ///
        /// A fetch whose download does not fit beside the ones waiting waits, without blocking a thread, for the
        /// writes ahead of it; a download larger than the limit waits until nothing else is waiting, then goes
        /// alone. The fetches waiting may hold the limit again between them (at least
        /// ``defaultWriteBehindLimit``); a fetch past it is not stored on disk
        /// (``BlobCache/persistentWriteFailures``). Zero writes one download at a time. Unused with
        /// ``PersistentWrites/beforeReturning``.
        public var writeBehindLimit: Int

        /// The default ``writeBehindLimit``: 64 MiB.
        public static var defaultWriteBehindLimit: Int { 64 << 20 }

        /// The least the fetches waiting for room may hold between them, whatever ``writeBehindLimit``:
        /// ``defaultWriteBehindLimit``. (Internal, so that tests can see the limit reached with small downloads.)
        var leastWaitingLimit = PersistentLayer.defaultWriteBehindLimit

        /// Creates the settings.
        ///
        /// - Parameters:
        ///   - location: The folder that holds the layer's folders.
        ///   - identifier: The name of the layer's folder. In a folder other programs share (`.caches`
        ///     outside an app's sandbox), use a name of your own, such as your bundle identifier's.
        ///   - maxSize: The most bytes of blobs kept.
        ///   - maxCount: The most blobs kept.
        ///   - durability: What a completed write survives.
        ///   - initialLifetime: The freshness of a blob whose response gives none; one day by default.
        ///   - lifetimeExtension: When a hit pushes back the expiry.
        ///   - cleaning: What cleaning removes.
        ///   - writes: When a download is written: before the fetch returns, or after it.
        ///   - verifiesContent: Whether a read from disk checks the blob's bytes; on by default.
        ///   - writeBehindLimit: The most bytes of downloads waiting to be written; 64 MiB by default.
        public init(
            location: FileDataSource.Location = .caches,
            identifier: String = "StrataBlobCache",
            maxSize: Int? = 256 << 20,
            maxCount: Int? = nil,
            durability: StoreDurability = .atomic,
            initialLifetime: Duration = .seconds(86_400),
            lifetimeExtension: LifetimeExtension = .none,
            cleaning: CleaningRule = .expiredOnly,
            writes: PersistentWrites = .beforeReturning,
            verifiesContent: Bool = true,
            writeBehindLimit: Int = PersistentLayer.defaultWriteBehindLimit
        ) {
            self.writes = writes
            self.writeBehindLimit = writeBehindLimit
            self.verifiesContent = verifiesContent
            self.location = location
            self.identifier = identifier
            self.maxSize = maxSize
            self.maxCount = maxCount
            self.durability = durability
            self.initialLifetime = initialLifetime
            self.lifetimeExtension = lifetimeExtension
            self.cleaning = cleaning
        }
    }
}
