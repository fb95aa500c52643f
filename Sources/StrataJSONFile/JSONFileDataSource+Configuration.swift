import Foundation
import Strata
import StrataStorage

extension JSONFileDataSource {
    /// Where a ``JSONFileDataSource`` keeps its files, its limits, and how it encodes values.
    public struct Configuration: Sendable {
        /// The store's folder; created when missing. One live store per folder.
        public var folder: URL

        /// The most entries kept, at least 1; the least recently used (by writes and keyed reads) go first.
        /// `nil` for no limit.
        public var countLimit: Int?

        /// The most bytes of entry files kept (each the value's JSON with its metadata, as stored); the least recently
        /// used go first. A value whose file alone would be larger is refused with
        /// ``Strata/StrataError/Code/tooLarge``. At least 1; `nil` for no limit.
        public var maxSize: Int?

        /// The most bytes of entry files one read of several entries (`getAll`, `getAllEntries`) loads in all:
        /// 1 GiB by default. Past it the read fails with ``Strata/StrataError/Code/tooLarge`` before it loads the entry
        /// that would pass it (read a page, or fewer keys, at a time). One entry file is at most 1 GiB whatever this
        /// says: a larger one is damage, set aside.
        public var maximumReadSize: Int = 1 << 30

        /// The most bytes of keys and metadata the store keeps in memory: 256 MiB by default, counted for each entry
        /// as its key's and tags' UTF-8 bytes and 64 for its dates, sequence and size.
        ///
        /// The store's index keeps every entry's key in memory, so this bounds what opening a folder can make it hold:
        /// a folder whose entries take more — a limit lowered since they were written, or entry files planted there
        /// under long keys, found when the index is rebuilt from them — is not opened:
        /// ``JSONFileDataSource/init(configuration:)`` throws ``Strata/StrataError/Code/tooLarge`` (a rebuild as soon
        /// as it has read past the limit) and evicts nothing: unlike ``maxSize`` and ``countLimit``, which an open
        /// applies by evicting, since choosing what to evict would take every key into memory first. A write or a
        /// renewal that takes the store past it evicts the least recently used entries, as ``maxSize`` does; one whose
        /// key and tags alone take more is refused with ``Strata/StrataError/Code/tooLarge``.
        public var maximumMetadataSize: Int = StoreLimits.defaultMaximumMetadataSize

        /// How long an entry lives unless its write gives its own; `nil` for ever.
        ///
        /// It is applied when an entry is read, so changing it applies to entries already stored without
        /// their own time to live. An expired entry reads as not found and is removed by
        /// ``JSONFileDataSource/removeExpired()``.
        public var timeToLive: Duration?

        /// Whether a write is fsynced before it returns.
        ///
        /// With ``Strata/StoreDurability/durable``, the index line of a write is not fsynced: a crash of the
        /// process loses none (the kernel holds it), and a store that a session of another boot of the machine
        /// left open (a power loss, a kernel crash) is rebuilt from its entry files when it next opens, which
        /// reads every entry file once. The store keeps that boot in a `session` file; where the platform gives
        /// no boot identifier, every index line is fsynced too. Keyed reads (which move an entry in the LRU
        /// order) are not flushed either: a rebuild orders entries by their writes, so a power loss can lose the
        /// order of reads, never a value.
        public var durability: StoreDurability

        /// Makes the encoder for each write.
        public var makeEncoder: @Sendable () -> JSONEncoder

        /// Makes the decoder for each read.
        public var makeDecoder: @Sendable () -> JSONDecoder

        /// The key under which ``Strata/PutDataSource/putAll(_:in:)`` stores each value for
        /// ``Strata/AllObjectsQuery``; `nil` refuses such puts.
        public var key: (@Sendable (Value) -> String)?

        /// The clock for stored dates and expiry.
        public var clock: any WallClock

        /// Receives every ``Strata/StrataError/Code/corrupt`` report (a damaged entry file or index,
        /// with the file's path), after the file was moved aside, and an ``Strata/StrataError/Code/io`` report when
        /// the store cannot remove an entry to come within its limits, after a write or as it opens (the write stands;
        /// the next one tries again).
        public var diagnostics: (@Sendable (StrataError) -> Void)?

        /// Hears every entry the store removes on its own — over ``countLimit`` or ``maxSize``, expired (by
        /// ``JSONFileDataSource/removeExpired()``), or purged by ``JSONFileDataSource/removeAll()`` — with the count
        /// and the bytes of entry files left; `nil` (the default) reports nothing.
        public var evictionObserver: (any StoreEvictionObserver)? = nil

        /// The folder the store must open, by its identity, when a caller checked it first (the `strata` tool): the
        /// store is then opened only if the folder at ``folder`` is still that one, and never made. `nil`: any.
        package var expectedFolder: FolderIdentity? = nil

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - folder: The store's folder.
        ///   - countLimit: The most entries kept.
        ///   - maxSize: The most bytes of entry files kept.
        ///   - timeToLive: The default lifetime of an entry.
        ///   - durability: ``Strata/StoreDurability/atomic`` (the default) or ``Strata/StoreDurability/durable``.
        ///   - makeEncoder: Makes the encoder for each write; a plain `JSONEncoder` by default.
        ///   - makeDecoder: Makes the decoder for each read; a plain `JSONDecoder` by default.
        ///   - key: The key of a value, for puts of lists.
        ///   - clock: The clock for stored dates and expiry.
        ///   - diagnostics: Receives corruption reports, and a failed eviction.
        public init(
            folder: URL,
            countLimit: Int? = nil,
            maxSize: Int? = nil,
            timeToLive: Duration? = nil,
            durability: StoreDurability = .atomic,
            makeEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() },
            makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
            key: (@Sendable (Value) -> String)? = nil,
            clock: any WallClock = SystemClock(),
            diagnostics: (@Sendable (StrataError) -> Void)? = nil
        ) {
            self.folder = folder
            self.countLimit = countLimit
            self.maxSize = maxSize
            self.timeToLive = timeToLive
            self.durability = durability
            self.makeEncoder = makeEncoder
            self.makeDecoder = makeDecoder
            self.key = key
            self.clock = clock
            self.diagnostics = diagnostics
        }
    }
}
