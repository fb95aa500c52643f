import Foundation
import Strata
import StrataStorage

/// A persistent blob store: one file per key in a folder, with size and count limits, expiry,
/// least-recently-used eviction and per-entry HTTP metadata.
///
/// The store is what Cache-Store's disk and Kumo's persistent layer are, made fast and crash-safe:
///
/// - **One read per get.** Each entry file holds the data followed by a small trailer (key, dates, size,
///   ETag, Last-Modified, content hash, checksum). An in-memory index, loaded once when the store opens,
///   knows every entry's length, so a get is one `openat`, one `pread` and one `close`, with no `stat` and no
///   metadata call. Last-access dates live in memory and are saved to a journal (`.strata-index`) by
///   ``removeExpired()``, ``flush()`` and when the store is released.
/// - **Checked reads.** A truncated or damaged file, a checksum mismatch or a file holding another key is a
///   miss: the file is removed when its trailer is sealed (magic, length and checksum: the proof the store wrote
///   it) and set aside by a rename when it is not, ``corruptEntriesRemoved`` counts it and the configuration's
///   `diagnostics` hears of it. Files without the `.strata` extension are never touched.
/// - **Never outside its folder.** The store holds its folder open and makes every call relative to it
///   (`openat`, `renameat`, `unlinkat`), never following a symbolic link: a link at an entry's name is damage
///   (the link is removed, never its target, and the get is a miss), a folder there is set aside by a rename,
///   temporary files are created exclusively under unpredictable names, and renaming or replacing the folder's
///   path after the store opened cannot redirect a write. The folder carries the marker `.strata-store`
///   (`strata-store 1 file`); a folder marked as another kind of store is refused.
/// - **Atomic writes.** A put writes a temporary file in the store's folder and renames it over the
///   entry, optionally with `fsync` (``Strata/StoreDurability/durable``).
/// - **Eviction without the file system's dates.** The order is a sequence number the store keeps, so two
///   writes in one millisecond still have an order and a restart keeps it. The store counts its own bytes.
/// - **Safe names.** A key of any content maps to 32 hex digits (two xxHash64 hashes of its NFC form) plus
///   `.strata`. Keys follow the key rule of ``Strata/KeyValueStore``: canonically equivalent keys are one key.
///
/// ```swift
/// let images = try FileDataSource(configuration: .init(identifier: "images", maxSize: 50 << 20))
/// try images.setValue(png, forKey: url.absoluteString, options: .init(eTag: "\"v1\""))
/// let cached = images.value(forKey: url.absoluteString)
/// ```
///
/// Both the async ``Strata/DataSource`` protocol and a synchronous API are available; the async methods
/// do their (short) file I/O on the caller's thread. Only one live store may use a folder, however its path
/// is spelled (the folder is known by its device and inode, so a link or a bind mount reaches the same
/// folder): in one process a second store fails with ``Strata/StrataError/Code/alreadyInUse``, and a record
/// lock (`fcntl` on `.strata-lock`) keeps other processes out.
public final class FileDataSource: Sendable {
    struct State {
        var index = EntryIndex()
        var corruptEntriesRemoved = 0
        /// Reports for the diagnostics closure made under the lock, handed to it once the lock is released
        /// (``withState(_:)``).
        var pendingReports: [StrataError] = []
        /// The index's revision the access journal on disk was last saved at; `nil` before the first save.
        var savedJournalRevision: UInt64?
    }

    /// The configuration the store was opened with.
    public let configuration: Configuration

    /// The store's folder.
    public let folderURL: URL

    /// The store's folder, held open: every call on a file in it is relative to this descriptor.
    let folder: StoreFolder

    let state: Locked<State>

    /// Announces every put, move, removal and ``removeAll()`` to observers (see ``changes(forKey:)``).
    public let changeBroadcaster = ChangeBroadcaster()

    /// The record of the list answer the store was given (see ``Strata/KeyValueStore``).
    public let storedListAnswer: StoredListAnswer

    /// The write stamps of every repository over the store (``Strata/CacheRepository``): a write through one keeps
    /// the others from writing an older answer of main back over it.
    package let writeStamps = CacheWriteStamps()

    private let ownership: StoreOwnership

    /// Opens the store in `configuration.location/configuration.identifier`, creating the folder if needed,
    /// loads the metadata of its entries and evicts as a write does while they are over the configuration's limits.
    ///
    /// - Parameter configuration: Where the store lives, its limits and policies.
    /// - Throws: ``Strata/StrataError/Code/alreadyInUse`` when a live store (in this process or another) uses the
    ///   folder, ``Strata/StrataError/Code/invalidArgument`` for an empty or path-like identifier, limits below 1 (a
    ///   ``Configuration/maximumReadSize`` below 0) or a folder that holds another kind of Strata store,
    ///   ``Strata/StrataError/Code/io`` when the folder cannot be created, opened or listed (a symbolic link in place
    ///   of the store's folder is refused), or the process runs out of descriptors while reading the entries' metadata;
    ///   ``Strata/StrataError/Code/tooLarge`` when the entries' keys and metadata take more than
    ///   ``Configuration/maximumMetadataSize`` (nothing is evicted).
    public init(configuration: Configuration) throws {
        try Self.validate(configuration)
        let url = configuration.folderURL
        let folder: StoreFolder
        do {
            folder = try StoreFolder.open(url.path, create: true, durable: configuration.durability == .durable)
        } catch {
            throw error.strataError("Opening the store folder")
        }
        // Another kind of store's folder is refused before the claim creates a lock file in it (`adopt` says why).
        if case .marker(let contents) = StoreMarker.read(in: folder), contents.kind != Self.markerKind {
            try StoreMarker.adopt(folder, kind: Self.markerKind)
        }
        let ownership = try StoreOwnership.claim(
            folder,
            mode: .exclusive,
            owner: "a FileDataSource (\(configuration.identifier))"
        )
        try StoreMarker.adopt(folder, kind: Self.markerKind)
        let loaded = try Self.load(
            folder,
            maximumMetadataSize: configuration.maximumMetadataSize,
            diagnostics: configuration.diagnostics
        )
        self.configuration = configuration
        self.folderURL = url.resolvingSymlinksInPath().standardizedFileURL
        self.folder = folder
        self.ownership = ownership
        self.state = Locked(State(index: loaded.index, corruptEntriesRemoved: loaded.corrupt))
        self.storedListAnswer = StoredListAnswer(clock: configuration.clock, timeToLive: configuration.timeToLive)
        // A folder written under larger limits, or none, is brought within these now, by the rule a write applies
        // (a file that cannot be removed is reported, and left to the next write).
        withState { evictOrReport(&$0, now: configuration.clock.now()) }
    }

    /// Opens a store with a few common settings.
    ///
    /// - Parameters:
    ///   - identifier: The name of the store's folder.
    ///   - location: The folder that holds it.
    ///   - maxSize: The most bytes of data kept.
    /// - Throws: As ``init(configuration:)``.
    public convenience init(identifier: String, location: Location = .caches, maxSize: Int? = nil) throws {
        try self.init(configuration: Configuration(location: location, identifier: identifier, maxSize: maxSize))
    }

    deinit {
        state.withLock { saveJournal(&$0) }
        ownership.release()
    }

    private static func validate(_ configuration: Configuration) throws {
        let identifier = configuration.identifier
        // One path component, read by bytes (`StoreFolder.checkName`): a combining mark after a `/` makes the two one
        // `Character`, so a check by `Character` found no `/` in `../\u{301}x`.
        guard (try? StoreFolder.checkName(identifier)) != nil else {
            throw StrataError(.invalidArgument, "The identifier \"\(identifier)\" is not a single folder name")
        }
        try StoreLimits.validate(
            countLimit: configuration.countLimit,
            maxSize: configuration.maxSize,
            maximumReadSize: configuration.maximumReadSize,
            maximumMetadataSize: configuration.maximumMetadataSize
        )
    }

    // MARK: - Reading

    /// Returns the data stored under `key` and marks it most recently used, or `nil` when there is none, it
    /// has expired, its file is damaged (which removes it) or it holds more than
    /// ``Configuration/maximumReadSize`` bytes (which keeps it).
    ///
    /// `nil` too when its file cannot be read (which keeps it): for want of permission, silently; for any other
    /// reason (out of descriptors or memory, an I/O error) with an ``Strata/StrataError/Code/io`` report to
    /// ``Configuration/diagnostics``. `get` and the other reads of the `DataSource` API throw that error instead
    /// (``checkedValue(forKey:)``), so a repository does not take it for a miss.
    ///
    /// - Parameter key: The key.
    public func value(forKey key: String) -> Data? {
        readReportingFailures(key)?.data
    }

    /// Returns the data stored under `key`, or `nil`, as ``value(forKey:)`` does, but throws a file it cannot read
    /// for another reason than permissions: what `get` reads.
    ///
    /// - Parameter key: The key.
    /// - Throws: ``Strata/StrataError/Code/io`` when the entry's file cannot be read (out of descriptors or memory,
    ///   an I/O error), naming the call and its `errno`; the entry is kept.
    public func checkedValue(forKey key: String) throws -> Data? {
        try read(key)?.data
    }

    /// Returns the data stored under `key` without using the entry: its place in the least-recently-used order
    /// and its last access stay as they were, and an expired entry is left for a read or a cleaning to remove.
    /// For the package's own looks into a store that may be the user's.
    package func peekValue(forKey key: String) -> Data? {
        readReportingFailures(key, markingUsed: false)?.data
    }

    /// Returns the data stored under `key` with its metadata: the date it was written, its expiry, its freshness
    /// date and its validators.
    ///
    /// `nil` as ``value(forKey:)`` answers it, a file that cannot be read included (reported to
    /// ``Configuration/diagnostics`` unless it is for want of permission).
    ///
    /// - Parameter key: The key.
    public func entry(forKey key: String) -> StoredEntry<Data>? {
        readReportingFailures(key).map(Self.storedEntry)
    }

    /// Returns the entry stored under `key`, or `nil`, as ``entry(forKey:)`` does, but throws a file it cannot read
    /// for another reason than permissions: what `getEntry` and the reads of several entries read.
    ///
    /// - Parameter key: The key.
    /// - Throws: As ``checkedValue(forKey:)``.
    public func checkedEntry(forKey key: String) throws -> StoredEntry<Data>? {
        try read(key).map(Self.storedEntry)
    }

    /// Returns the entry stored under `key` for a listing, as ``checkedEntry(forKey:)`` does (a listing marks the
    /// entries it reads as used).
    ///
    /// - Parameter key: The key.
    /// - Throws: As ``checkedValue(forKey:)``.
    public func checkedListedEntry(forKey key: String) throws -> StoredEntry<Data>? {
        try checkedEntry(forKey: key)
    }

    /// The entry a read gave, with its metadata from its trailer.
    private static func storedEntry(_ read: (data: Data, trailer: EntryTrailer)) -> StoredEntry<Data> {
        StoredEntry(
            value: read.data,
            metadata: EntryMetadata(
                storedAt: read.trailer.created,
                expiresAt: read.trailer.expiresAt,
                freshUntil: read.trailer.freshUntil,
                eTag: read.trailer.eTag,
                lastModified: read.trailer.lastModified,
                tags: Set(read.trailer.tags),
                forbidsServingStale: read.trailer.forbidsServingStale
            )
        )
    }

    /// Returns what the store knows about the entry under `key`, without reading its data; `nil` when there
    /// is none or it has expired.
    ///
    /// - Parameter key: The key.
    public func info(forKey key: String) -> FileEntryInfo? {
        describe(key, markingUsed: false)
    }

    /// Marks the entry under `key` as just used, as a read does, without reading its data, and returns what
    /// the store knows about it; `nil` when there is none or it has expired.
    ///
    /// For a caller that keeps the entry's data elsewhere (a copy it made from a read and tells apart by
    /// ``FileEntryInfo/contentHash``) and uses that copy: the entry stays in the least-recently-used order as
    /// if it had been read. The data is not read, so it is not checked against its content hash either.
    ///
    /// - Parameter key: The key.
    @discardableResult
    public func markUsed(forKey key: String) -> FileEntryInfo? {
        describe(key, markingUsed: true)
    }

    /// The live entry under `key`, marked as just used when `markingUsed`.
    private func describe(_ key: String, markingUsed: Bool) -> FileEntryInfo? {
        let name = EntryName(key: key)
        let now = configuration.clock.now()
        return state.withLock { state -> FileEntryInfo? in
            guard var entry = state.index.entry(name), entry.trailer.key == key else {
                return nil
            }
            if let expiresAt = entry.trailer.expiresAt, now >= expiresAt { return nil }
            if markingUsed, let touched = state.index.touch(name, at: now) { entry = touched }
            return FileEntryInfo(entry.trailer, lastAccess: entry.lastAccess)
        }
    }

    /// The keys of the live entries in ascending order (Swift's `String` order), the order of
    /// ``Strata/AllObjectsQuery`` and of pagination.
    public func sortedKeys() -> [String] {
        let now = configuration.clock.now()
        let keys = state.withLock { state in
            state.index.entries.compactMap { entry -> String? in
                guard let entry else { return nil }
                if let expiresAt = entry.trailer.expiresAt, now >= expiresAt { return nil }
                return entry.trailer.key
            }
        }
        return keys.sorted()
    }

    /// The keys from the most to the least recently used: the reverse of the eviction order.
    public var keysByRecency: [String] {
        state.withLock { $0.index.entriesByRecency.map(\.trailer.key) }
    }

    /// The number of entries, expired ones included until they are read or cleaned up.
    public var count: Int { state.withLock { $0.index.count } }

    /// The bytes of data the store holds (entries' data, as written; metadata not included).
    public var totalSize: Int { state.withLock { $0.index.totalSize } }

    /// The bytes of keys and metadata the store holds, as stored: what ``Configuration/maximumMetadataSize`` bounds.
    public var metadataSize: Int { state.withLock { $0.index.metadataSize } }

    /// How many damaged entry files the store has found and discarded since it was opened: removed, or set
    /// aside by a rename when a folder, another non-file or a file without a sealed trailer was at an entry's name.
    public var corruptEntriesRemoved: Int { state.withLock { $0.corruptEntriesRemoved } }
}

extension FileDataSource: WriteStampedCache {
    /// The store's write stamps.
    package var sharedWriteStamps: CacheWriteStamps? { writeStamps }
}
