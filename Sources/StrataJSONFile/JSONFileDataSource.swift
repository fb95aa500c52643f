import Foundation
import Strata
import StrataStorage

/// A data source that keeps `Codable` values as JSON files in a folder: no SQLite, every query kind,
/// atomic saves, count and size limits with least-recently-used eviction, and maximum ages.
///
/// ```swift
/// let users = try JSONFileDataSource<User>(
///     configuration: .init(folder: cachesURL.appending(path: "users"), countLimit: 150, timeToLive: .seconds(300))
/// )
/// let user = User(id: 42, name: "Ann")
/// _ = try await users.put(user, in: IdQuery(user.id))
/// let page = try await users.getAll(PaginationOffsetLimitQuery(offset: 0, limit: 20))
/// ```
///
/// ## Storage layout
///
/// Built for stores of 100,000 entries: opening reads only the index (and, once, the sizes of the entry files an
/// index written by an earlier version lacks), and a write rewrites only its entry's file and appends one line to
/// the index.
///
/// - term `entries/<ab>/<abcd…>.json`: one JSON file per entry, named by the first 128 bits of the
///   SHA-256 of the key's NFC form in hexadecimal (in 256 sub-folders), so any key — `../`, NUL, 10 KB,
///   emoji, keys that differ only in case — is a safe file name, and keys Swift considers equal
///   (canonically equivalent) share one file. The file holds the key, the stored date,
///   the entry's maximum age, its LRU sequence and the value, so the index can be rebuilt from it.
/// - term `index.journal`: the index — keys, stored dates, maximum ages, LRU sequence numbers and the entry
///   files' sizes — as an append-only journal of checksummed lines (a write, a read, a removal each append one).
///   It is compacted when the store opens with a torn or long journal or one without sizes, when it grows past
///   four times the entry count, and by ``removeExpired()``. When it is missing or damaged, it is rebuilt from the
///   entry files.
///
/// LRU order comes from sequence numbers that every write and keyed read takes, never from file dates.
///
/// ## Crashes and corruption
///
/// An entry file is written to a temporary file in the store's folder and renamed over the old one, then the
/// index line is appended; after a crash at any point the store opens with each entry either its old
/// or its new value. With ``Strata/StoreDurability/durable`` the file and its folder are fsynced before a
/// write returns, a store left open by another boot of the machine is rebuilt from its entry files, and one left
/// open by a killed process of this boot takes in the entry file a write renamed in before its index line
/// (see ``Configuration/durability``). Each entry file ends in a checksum line; a damaged file (a checksum
/// that does not match, bytes that are not JSON, the file of another key) is moved aside as
/// `<name>.corrupt-<yyyyMMdd-HHmmss>` (never deleted), reported as a ``Strata/StrataError`` with code
/// ``Strata/StrataError/Code/corrupt`` naming the file (to ``Configuration/diagnostics`` and
/// ``corruptionReports``), and the entry reads as not found; the rest of the store stays usable. An intact
/// file whose value does not decode as `Value` (the app changed its type) is left where it is and its read
/// throws ``Strata/StrataError/Code/dataSerialization``. A damaged or cut index is rebuilt from the entry
/// files and reported.
///
/// One lock guards the state and the file operations, so calls are serialised. A value is encoded and decoded
/// (its `Codable` conformance, the configuration's coders and their strategies) under that lock: they must not call
/// the store, which would wait for itself. A folder has one live
/// store: a second one, in this process or another, and through any path that reaches the same folder,
/// fails with ``Strata/StrataError/Code/alreadyInUse``. The folder carries a marker (`.strata-store`) that
/// tells tools it is a JSON store, and every file call is made relative to the open folder without following
/// links: a link, file or folder where the store keeps something else is reported and set aside (a link is
/// removed, never what it points to), and no file the store did not name is ever deleted.
public final class JSONFileDataSource<Value: Codable & Sendable>: Sendable {
    /// The folder, limits, policies and coders of the source.
    public let configuration: Configuration

    private let storage: Locked<JSONFileStorage>

    /// Announces every put, removal and ``removeAll()`` to observers (see ``changes(forKey:)``).
    public let changeBroadcaster = ChangeBroadcaster()

    /// The record of the list answer the store was given (see ``Strata/KeyValueStore``).
    public let storedListAnswer: StoredListAnswer

    /// The write stamps of every repository over the store (``Strata/CacheRepository``): a write through one keeps
    /// the others from writing an older answer of main back over it.
    package let writeStamps = CacheWriteStamps()

    /// Opens the store in the configuration's folder, creating it when missing.
    ///
    /// Opening replays the index; it reads no entry file unless the index must be rebuilt (and measures the files of
    /// entries whose index lines, written by an earlier version, lack their size: once). A folder holding more than
    /// ``Configuration/countLimit`` or ``Configuration/maxSize`` allows loses its least recently used entries
    /// (reported to the eviction observer) before the store is returned.
    ///
    /// - Parameter configuration: Folder, limits, maximum age, coders, clock and diagnostics.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/io`` when the folder or the
    ///   index cannot be read or written, ``Strata/StrataError/Code/alreadyInUse`` when a live store holds the
    ///   folder, ``Strata/StrataError/Code/invalidArgument`` for a count or size limit below 1 (`nil` is no
    ///   limit), a negative read limit, or a folder that holds another kind of store.
    public init(configuration: Configuration) throws {
        try StoreLimits.validate(
            countLimit: configuration.countLimit,
            maxSize: configuration.maxSize,
            maximumReadSize: configuration.maximumReadSize,
            maximumMetadataSize: configuration.maximumMetadataSize
        )
        self.configuration = configuration
        self.storedListAnswer = StoredListAnswer(clock: configuration.clock, timeToLive: configuration.timeToLive)
        let makeDecoder = configuration.makeDecoder
        var state = try JSONFileStorage.open(
            path: configuration.folder.standardizedFileURL.path,
            durable: configuration.durability == .durable,
            now: configuration.clock.now(),
            expecting: configuration.expectedFolder,
            maximumMetadataSize: configuration.maximumMetadataSize
        ) { data in
            try makeDecoder().decode(EntryHeader.self, from: data)
        }
        let reports = state.pendingReports
        state.pendingReports = []
        self.storage = Locked(state)
        deliver(reports)
        // A folder holding more than the limits allow (written with larger ones, or none) is brought within them at
        // once, by the rule a write applies (a file that cannot be removed is reported, and left to the next write).
        let now = configuration.clock.now()
        try withStorage { storage in evictOverLimitsOrReport(from: &storage, now: now) }
    }

    /// Opens a store with the common options.
    ///
    /// - Parameters:
    ///   - folder: The store's folder.
    ///   - countLimit: The most entries kept.
    ///   - timeToLive: The default lifetime of an entry.
    ///   - clock: The clock for stored dates and expiry.
    public convenience init(
        folder: URL,
        countLimit: Int? = nil,
        timeToLive: Duration? = nil,
        clock: any WallClock = SystemClock()
    ) throws {
        try self.init(
            configuration: Configuration(folder: folder, countLimit: countLimit, timeToLive: timeToLive, clock: clock)
        )
    }

    /// Runs `body` under the lock, then hands the corruption reports it made to the diagnostics closure.
    func withStorage<Result: Sendable>(_ body: (inout JSONFileStorage) throws -> Result) throws -> Result {
        let (result, reports) = storage.withLock { storage -> (Swift.Result<Result, any Error>, [StrataError]) in
            let result = Swift.Result { try body(&storage) }
            let reports = storage.pendingReports
            storage.pendingReports = []
            return (result, reports)
        }
        deliver(reports)
        return try result.get()
    }

    private func deliver(_ reports: [StrataError]) {
        guard let diagnostics = configuration.diagnostics else { return }
        for report in reports { diagnostics(report) }
    }

    var defaultMaxAge: Double? { configuration.timeToLive?.timeInterval }
}

extension JSONFileDataSource: WriteStampedCache {
    /// The store's write stamps.
    package var sharedWriteStamps: CacheWriteStamps? { writeStamps }
}
