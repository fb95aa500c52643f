import Foundation
import Strata

extension FileDataSource {
    /// Where and how a ``FileDataSource`` keeps its files: the store's folder, its limits and its policies.
    ///
    /// The store's folder is `location/identifier`. Like Cache-Store's `DiskSetting`, the identifier must be
    /// unique: a second live store on the same folder fails with ``Strata/StrataError/Code/alreadyInUse``.
    ///
    /// ```swift
    /// let configuration = FileDataSource.Configuration(
    ///     location: .caches, identifier: "images", lifetime: .duration(.seconds(7 * 86_400)),
    ///     maxSize: 50 << 20, maxCount: 10_000)
    /// ```
    public struct Configuration: Sendable {
        /// The folder that holds the store's folder.
        public var location: Location

        /// The name of the store's folder inside ``location``; unique among live stores.
        public var identifier: String

        /// How long an entry lives unless its put says otherwise.
        public var lifetime: Lifetime

        /// The most bytes of data kept (entries' data only, not their ~72-byte metadata); `nil` for no limit.
        public var maxSize: Int?

        /// The most entries kept; `nil` for no limit.
        public var maxCount: Int?

        /// Whether a write survives only a crash of the process (``Durability/atomic``) or also a power loss.
        public var durability: Durability

        /// The clock for created, last-access and expiry dates.
        public var clock: any WallClock

        /// Whether every read checks the data against its content checksum (a multi-lane Fletcher sum that runs at
        /// about the speed of a memory copy), so a flipped bit is a miss.
        ///
        /// On by default. The check costs a fraction of reading the bytes from the page cache (about a
        /// quarter of the read for a 1 MiB entry); with it off, truncated, extended and replaced files and
        /// damaged metadata are still caught.
        public var verifiesContent: Bool

        /// Receives a line for each damaged entry the store finds and removes; `nil` to stay quiet.
        public var diagnostics: (@Sendable (String) -> Void)?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - location: The folder that holds the store's folder.
        ///   - identifier: The name of the store's folder; unique among live stores.
        ///   - lifetime: The default lifetime of an entry.
        ///   - maxSize: The most bytes of data kept.
        ///   - maxCount: The most entries kept.
        ///   - durability: What a write survives.
        ///   - clock: The clock for dates and expiry.
        ///   - verifiesContent: Whether every read checks the data against its content hash.
        ///   - diagnostics: Receives a line for each damaged entry removed.
        public init(
            location: Location = .caches,
            identifier: String,
            lifetime: Lifetime = .forever,
            maxSize: Int? = nil,
            maxCount: Int? = nil,
            durability: Durability = .atomic,
            clock: any WallClock = SystemClock(),
            verifiesContent: Bool = true,
            diagnostics: (@Sendable (String) -> Void)? = nil
        ) {
            self.location = location
            self.identifier = identifier
            self.lifetime = lifetime
            self.maxSize = maxSize
            self.maxCount = maxCount
            self.durability = durability
            self.clock = clock
            self.verifiesContent = verifiesContent
            self.diagnostics = diagnostics
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

    /// How long entries live.
    public enum Lifetime: Sendable, Hashable {
        /// Entries expire this long after they are written.
        case duration(Duration)
        /// Entries never expire; only the size and count limits remove them.
        case forever

        /// The duration, or `nil` for ``forever``.
        public var duration: Duration? {
            switch self {
            case .duration(let duration): duration
            case .forever: nil
            }
        }
    }

    /// What a completed write survives.
    public enum Durability: Sendable, Hashable {
        /// A temporary file in the store's folder renamed over the entry, without `fsync`: a reader sees the old
        /// or the new entry, never a mix, and a crash of the process loses nothing acknowledged. A power loss
        /// may lose recent writes (never corrupts: a damaged entry is a miss).
        case atomic
        /// As ``atomic``, and the file and the folder are flushed (`fsync`) before the write returns, so an
        /// acknowledged write survives a power loss. About three times slower.
        case durable
    }
}
