import Foundation
import Strata
import StrataStorage

extension FileDataSource {
    /// Where and how a ``FileDataSource`` keeps its files: the store's folder, its limits and its policies.
    ///
    /// The store's folder is `location/identifier`. Like Cache-Store's `DiskSetting`, the identifier must be
    /// unique: a second live store on the same folder fails with ``Strata/StrataError/Code/alreadyInUse``.
    ///
    /// ```swift
    /// let configuration = FileDataSource.Configuration(
    ///     location: .caches, identifier: "images", timeToLive: .seconds(7 * 86_400),
    ///     maxSize: 50 << 20, countLimit: 10_000)
    /// ```
    public struct Configuration: Sendable {
        /// The folder that holds the store's folder.
        public var location: Location

        /// The name of the store's folder inside ``location``; unique among live stores.
        public var identifier: String

        /// How long an entry lives unless its put says otherwise; `nil` for ever (only the limits remove it).
        public var timeToLive: Duration?

        /// The most bytes of data kept (entries' data only, not their ~72-byte metadata), at least 1; `nil` for no
        /// limit.
        public var maxSize: Int?

        /// The most entries kept, at least 1; `nil` for no limit.
        public var countLimit: Int?

        /// The most bytes of data a read loads into memory: 1 GiB by default.
        ///
        /// ``FileDataSource/value(forKey:)`` and ``FileDataSource/entry(forKey:)`` (and the `get`s built on them)
        /// answer `nil` for a larger entry — one moved in by ``FileDataSource/move(fileAt:forKey:options:)``, or a
        /// sparse file of terabytes planted in the folder with a trailer that passes — and report a
        /// ``Strata/StrataError/Code/tooLarge`` to ``diagnostics``; the entry is kept, not marked used, and its
        /// metadata still answers ``FileDataSource/info(forKey:)``. A read of several entries (`getAll`,
        /// `getAllEntries`) loads at most this much in all: past it, it fails with
        /// ``Strata/StrataError/Code/tooLarge`` before it loads the entry that would pass it (an entry larger than
        /// the limit alone is skipped, as a keyed read misses it). A `FileCacheProvider` copies its downloads out of
        /// the store through a small buffer, whatever this limit.
        public var maximumReadSize: Int = 1 << 30

        /// The most bytes of keys and metadata the store keeps in memory, counted as stored (an entry's trailer: about
        /// 72 bytes, its key, ETag, Last-Modified, tags and attributes): 256 MiB by default, about two million entries
        /// under keys of a hundred bytes.
        ///
        /// The store keeps every entry's metadata in memory, so this bounds what opening a folder can make it hold: a
        /// folder whose entries take more — a limit lowered since they were written, or files planted there, each with
        /// a key of up to 16 MiB — is not opened: ``FileDataSource/init(configuration:)`` throws
        /// ``Strata/StrataError/Code/tooLarge`` as soon as it has read past the limit, and evicts nothing (the folder's
        /// entries stay as they were): unlike ``maxSize`` and ``countLimit``, which an open applies by evicting, since
        /// choosing what to evict would take every key into memory first. A write or a renewal that takes the store
        /// past it evicts the least recently used entries, as ``maxSize`` does; one whose key and metadata alone take
        /// more is refused with ``Strata/StrataError/Code/tooLarge``.
        public var maximumMetadataSize: Int = StoreLimits.defaultMaximumMetadataSize

        /// Whether a write survives only a crash of the process (``Strata/StoreDurability/atomic``) or also a
        /// power loss.
        public var durability: StoreDurability

        /// The clock for created, last-access and expiry dates.
        public var clock: any WallClock

        /// Whether every read checks the data against its content checksum (a multi-lane Fletcher sum that runs at
        /// about the speed of a memory copy), so a flipped bit is a miss.
        ///
        /// On by default. The check costs a fraction of reading the bytes from the page cache (about a
        /// quarter of the read for a 1 MiB entry); with it off, truncated, extended and replaced files and
        /// damaged metadata are still caught.
        public var verifiesContent: Bool

        /// Receives a ``Strata/StrataError/Code/corrupt`` report for each damaged entry the store finds and
        /// discards (naming the file and what was done with it), and an ``Strata/StrataError/Code/io`` report when
        /// the store cannot remove an entry to come within its limits, after a write or as it opens (the write stands;
        /// the next one tries again), or when a read that cannot throw (``FileDataSource/value(forKey:)``) answers
        /// `nil` for an entry whose file it could not read (out of descriptors, an I/O error); `nil` to stay quiet. It is called on the thread of the call that made the
        /// report, with no lock of the store held: it may call the store.
        public var diagnostics: (@Sendable (StrataError) -> Void)?

        /// The key under which `putAll(_:in: AllObjectsQuery())` stores each value; `nil` refuses such puts of
        /// a non-empty list.
        public var key: (@Sendable (Data) -> String)?

        /// Hears every entry the store removes on its own — over ``countLimit`` or ``maxSize``, expired, or purged by
        /// ``FileDataSource/removeAll()`` — with the count and payload bytes left; `nil` (the default) reports
        /// nothing.
        public var evictionObserver: (any StoreEvictionObserver)? = nil

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - location: The folder that holds the store's folder.
        ///   - identifier: The name of the store's folder; unique among live stores.
        ///   - timeToLive: The default lifetime of an entry; `nil` for ever.
        ///   - maxSize: The most bytes of data kept.
        ///   - countLimit: The most entries kept.
        ///   - durability: What a write survives.
        ///   - clock: The clock for dates and expiry.
        ///   - verifiesContent: Whether every read checks the data against its content hash.
        ///   - diagnostics: Receives a report for each damaged entry discarded, and for a failed eviction.
        ///   - key: The key of a value, for puts of lists.
        public init(
            location: Location = .caches,
            identifier: String,
            timeToLive: Duration? = nil,
            maxSize: Int? = nil,
            countLimit: Int? = nil,
            durability: StoreDurability = .atomic,
            clock: any WallClock = SystemClock(),
            verifiesContent: Bool = true,
            diagnostics: (@Sendable (StrataError) -> Void)? = nil,
            key: (@Sendable (Data) -> String)? = nil
        ) {
            self.location = location
            self.identifier = identifier
            self.timeToLive = timeToLive
            self.maxSize = maxSize
            self.countLimit = countLimit
            self.durability = durability
            self.clock = clock
            self.verifiesContent = verifiesContent
            self.diagnostics = diagnostics
            self.key = key
        }

        /// The store's folder: `location/identifier`.
        public var folderURL: URL {
            location.url.appendingPathComponent(identifier, isDirectory: true)
        }
    }

    /// The folder that holds a store's folder.
    public enum Location: Sendable, Hashable {
        /// The user's caches folder (`~/Library/Caches` on Apple platforms, `$XDG_CACHE_HOME` or
        /// `~/.cache` on Linux): the system may empty it.
        ///
        /// In an iOS app, and a Mac app in the App Sandbox, the folder is the app's own. A Mac app outside the
        /// sandbox (a Developer ID app, a command-line tool) and a Linux process share it with every other program
        /// of the user: give the store an identifier no other program uses (start it with your bundle identifier),
        /// or two programs open one store — the second fails with `alreadyInUse` while the first runs, and at
        /// other times they share its limits and evict or clear each other's entries. On macOS's default file
        /// system names differ by case only in looks: `Avatars` and `avatars` are one folder there.
        case caches
        /// The temporary folder.
        case temporary
        /// A folder of your choice.
        case url(URL)

        /// The folder's URL.
        public var url: URL {
            switch self {
            case .caches:
                FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
                    ?? FileManager.default.temporaryDirectory
            case .temporary: FileManager.default.temporaryDirectory
            case .url(let url): url
            }
        }
    }
}
