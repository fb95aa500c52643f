import Foundation
import Strata
import StrataJSONFile
import StrataStorage

/// The durable queue of writes that reached the cache but not yet main, kept in a folder through Strata's
/// JSON-file store.
///
/// An ``OfflineRepository`` adds a record (a ``PendingWrite``) when main fails a write with a retryable error, or
/// at once when a write of the key already waits here or is on its way to main, and removes it once main took the
/// write. The outbox keeps every record in memory too, so asking whether a
/// key has a pending write costs no I/O.
///
/// ## Storage
///
/// The folder carries the store marker of kind `outbox` (so `strata inspect <folder>` lists it) and holds a
/// JSON-file store in `records/`: one file per record, named by its sequence number in 20 digits. The JSON
/// store's guarantees hold: a record is written to a temporary file and renamed (fsynced with
/// ``Strata/StoreDurability/durable``, the default), a killed process leaves each record whole or absent, a damaged
/// file is moved aside and reported, and a folder has one live outbox (a second one fails with
/// ``Strata/StrataError/Code/alreadyInUse``). A file that is intact JSON but not a record is kept as an
/// ``UnreadableRecord``; a record whose fields make no sense is set aside (``PendingWrite/isSetAside``). Neither
/// stops the outbox from opening.
///
/// ## Limits
///
/// The records live in memory, so the outbox holds at most ``Limits/maximumWrites`` of them (its records store evicts
/// none: these limits are the only bound) and
/// ``Limits/maximumBytes`` of queued values (set-aside records count until they are dropped). A write that would
/// go past either is not queued: it fails with ``Strata/StrataError/Code/tooLarge``, and the caller learns that
/// main does not have it — unless main's answer to its first attempt was lost (the error then says main may have it,
/// ``Strata/StrataError/mayHaveTakenEffect``). A conflict's merged value that would go past ``Limits/maximumBytes`` is not queued either:
/// the write is set aside as it was. An outbox that an earlier run left over its limits still opens with every record,
/// and takes new writes once replays bring it back under them.
public actor Outbox {
    /// The outbox's folder.
    public nonisolated let folder: URL

    /// Announces a change of a key's pending writes (`put(key:)` when one was added or removed), so streams
    /// can show "saving…" and "saved".
    public nonisolated let changeBroadcaster = ChangeBroadcaster()

    /// The records, one JSON file each.
    private let store: JSONFileDataSource<OutboxFile>
    /// The folder's marker holder, kept open while the outbox lives.
    private let marked: StoreFolder

    /// Every record, by sequence number.
    private var records: [UInt64: PendingWrite] = [:]
    /// The sequence numbers in order; may hold numbers already removed from ``records``. A slice, so that removing
    /// the first (a replay delivers in order) costs nothing.
    private var order: ArraySlice<UInt64> = []
    /// The sequence numbers of each key's records (set aside or not), in order: asking about one key never reads
    /// the others' records.
    private var sequencesByKey: [String: ArraySlice<UInt64>] = [:]
    /// The bytes of every record's value.
    private var valueBytes = 0
    /// The most records and value bytes the outbox takes.
    public nonisolated let limits: Limits
    /// The claim of the one repository the outbox serves.
    nonisolated let service = Locked(ServiceClaims())
    /// The keys with records to replay (not set aside) and who is told of them, under a lock of their own: a
    /// repository starts watching them from its synchronous initializer (``watchQueuedKeys(claim:_:)``).
    nonisolated let queuedKeys = Locked(QueuedKeys())
    /// Keys with a write on its way to main outside the queue (the first attempt).
    private var directKeys: [String: Int] = [:]
    /// The numbers handed out to writes that have neither a record yet nor ended: once the largest number is in use,
    /// numbering starts again after the largest of these and of the records, so no two writes share one.
    private var unrecordedNumbers: Set<UInt64> = []
    /// The files that are not records.
    private var unreadable: [UnreadableRecord] = []
    /// The record a replay is sending now, from ``beginSending(_:)`` to ``endSending(failed:)``.
    private var inFlight: InFlight?
    /// The next sequence number handed out; `nil` once the largest number is in use (a file numbered
    /// `UInt64.max`, or a write so numbered): new writes are refused until that record is sent or dropped.
    private var nextSequence: UInt64? = 1
    /// Serialises the changes of the files, so memory and disk change in the same order.
    private let lane = SerialLane()

    /// The kind written in the folder's store marker.
    static let markerKind = "outbox"

    /// The subfolder that holds the JSON-file store of records.
    public static let recordsFolderName = "records"

    /// Creates an outbox over an open records store; ``open(folder:durability:limits:diagnostics:)`` reads it.
    private init(folder: URL, store: JSONFileDataSource<OutboxFile>, marked: StoreFolder, limits: Limits) {
        self.folder = folder
        self.store = store
        self.marked = marked
        self.limits = limits
    }

    /// Opens the outbox in `folder`, creating it when missing, and reads every record.
    ///
    /// - Parameters:
    ///   - folder: The outbox's folder; give each repository its own.
    ///   - durability: ``Strata/StoreDurability/durable`` (the default) fsyncs each record before the write returns.
    ///   - limits: The most records and value bytes it takes; ``Limits/default`` by default.
    ///   - diagnostics: Receives the JSON store's corruption reports (a damaged record file, moved aside).
    /// - Throws: ``Strata/StrataError``: ``Strata/StrataError/Code/alreadyInUse`` when a live outbox holds the
    ///   folder, ``Strata/StrataError/Code/invalidArgument`` when it holds another kind of store,
    ///   ``Strata/StrataError/Code/io`` when it cannot be read or written.
    public static func open(
        folder: URL,
        durability: StoreDurability = .durable,
        limits: Limits = .default,
        diagnostics: (@Sendable (StrataError) -> Void)? = nil
    ) async throws -> Outbox {
        let marked: StoreFolder
        do {
            marked = try StoreFolder.open(
                folder.standardizedFileURL.path,
                create: true,
                durable: durability == .durable
            )
        } catch {
            throw error.strataError("Opening the outbox folder")
        }
        try StoreMarker.adopt(marked, kind: markerKind)
        let store = try JSONFileDataSource<OutboxFile>(
            configuration: recordsConfiguration(folder: folder, durability: durability, diagnostics: diagnostics)
        )
        let outbox = Outbox(folder: folder, store: store, marked: marked, limits: limits)
        try await outbox.load()
        return outbox
    }

    /// The configuration of the records store in `folder`: one that never evicts a record, whatever ``limits`` say.
    ///
    /// The outbox bounds itself (``Limits``); an eviction would delete an acknowledged write's file. So the store has no
    /// count, size or age limit, and no bound on its keys and metadata either: its default, 256 MiB, is reached by
    /// about 3.2 million records (84 bytes each), which a raised ``Limits/maximumWrites`` allows.
    static func recordsConfiguration(
        folder: URL,
        durability: StoreDurability,
        diagnostics: (@Sendable (StrataError) -> Void)?
    ) -> JSONFileDataSource<OutboxFile>.Configuration {
        var configuration = JSONFileDataSource<OutboxFile>.Configuration(
            folder: folder.appendingPathComponent(recordsFolderName, isDirectory: true),
            durability: durability,
            diagnostics: diagnostics
        )
        configuration.maximumMetadataSize = .max
        return configuration
    }

    /// Every file of the store with its store key, in key order (the order of writes).
    ///
    /// The key names the file; the number a record holds is only what the file says, so each file is paired
    /// with its key here and a removal always names the file that was read. An intact file that holds no value at
    /// all (the store refuses to decode it) is unreadable, not a reason to refuse the whole outbox. A file the system
    /// refuses to read (permissions, a disk error) fails the open instead: it may hold an older write of a key whose
    /// later writes would otherwise be replayed first, and then be overwritten by it once it can be read again.
    private func storedFiles() throws -> [(storeKey: String, file: OutboxFile)] {
        try store.sortedKeys().compactMap { key in
            do {
                return try store.listedEntry(forKey: key).map { (key, $0.value) }
            } catch let error as StrataError where error.code == .dataSerialization {
                return (key, .unreadable(nil, "not an outbox record: \(error.message)"))
            }
        }
    }

    /// Reads every file of the store into memory, in sequence order.
    ///
    /// A record whose number is not the one its file is stored under is set aside as unreadable, listed under
    /// the file's number: removing it by the number it claims would remove another record's file (or none,
    /// and the record would be replayed again at every open).
    private func load() async throws {
        var maximum: UInt64 = 0
        for (storeKey, file) in try storedFiles() {
            let fileSequence = PendingWrite.sequence(ofStoreKey: storeKey)
            if let fileSequence { maximum = max(maximum, fileSequence) }
            switch file {
            case .record(var record):
                guard record.sequence == fileSequence else {
                    let reason = "a record numbered \(record.sequence) in the file of \(storeKey)"
                    unreadable.append(UnreadableRecord(sequence: fileSequence, reason: reason))
                    continue
                }
                if let defect = record.defect, !record.isSetAside {
                    record.isSetAside = true
                    record.lastError = "Set aside when the outbox opened: \(defect)"
                }
                records[record.sequence] = record
                valueBytes += record.value?.count ?? 0
            case .unreadable(_, let reason):
                unreadable.append(UnreadableRecord(sequence: fileSequence, reason: reason))
            }
        }
        order = ArraySlice(records.keys.sorted())
        for sequence in order {
            if let key = records[sequence]?.key { sequencesByKey[key, default: []].append(sequence) }
        }
        queuedKeys.withLock { $0.keys = Set(sequencesByKey.keys.filter(hasReplayableRecord)) }
        nextSequence = Self.number(after: maximum)
    }

    /// The number after `largest`; `nil` when `largest` is the largest there is.
    private static func number(after largest: UInt64) -> UInt64? {
        let (next, overflow) = largest.addingReportingOverflow(1)
        return overflow ? nil : next
    }
}

// MARK: - Inspection

extension Outbox {
    /// Every record, in the order of writes, set-aside ones included.
    public var pendingWrites: [PendingWrite] { order.compactMap { records[$0] } }

    /// The records of one key, in the order of writes.
    ///
    /// - Parameter key: The entry's key.
    public func pendingWrites(forKey key: String) -> [PendingWrite] {
        (sequencesByKey[key] ?? []).compactMap { records[$0] }
    }

    /// How many records the outbox holds, set-aside ones included.
    public var count: Int { records.count }

    /// The files of the folder that are not records.
    public var unreadableRecords: [UnreadableRecord] { unreadable }

    /// Whether a write of `key` waits in the outbox to be replayed, or is on its way to main. A set-aside write does
    /// not count: it is never replayed, so its key reads and writes as one without writes waiting.
    ///
    /// - Parameter key: The entry's key.
    public func isPending(key: String) -> Bool {
        hasReplayableRecord(key) || directKeys[key] != nil || isDroppedOnItsWay(key)
    }

    /// Whether a write of `key` waits to reach main: a record to replay, or a first attempt on its way. Unlike
    /// ``isPending(key:)``, a record dropped while a replay sends it does not count: main refused the write that
    /// asks (it is that record, or came after it), so no value of the key is left for the cache to show.
    ///
    /// - Parameters:
    ///   - key: The entry's key.
    ///   - sequence: A record of the key that does not count (one about to be set aside).
    func hasWaitingWrite(key: String, besides sequence: UInt64? = nil) -> Bool {
        latest(forKey: key).map { $0.sequence != sequence } == true || directKeys[key] != nil
    }

    /// Whether a record of `key` waits to be replayed: one that is not set aside.
    private func hasReplayableRecord(_ key: String) -> Bool { latest(forKey: key) != nil }

    /// Whether a record of `key` was dropped while a replay sends it: main may still apply it, after any write of the
    /// key that went to main meanwhile, so the key counts as queued until the send ends.
    private func isDroppedOnItsWay(_ key: String) -> Bool {
        inFlight.map { $0.isDropped && $0.key == key } ?? false
    }

    /// Tells the repository whether `key` has a record to replay now, or one dropped on its way
    /// (``noteQueued(_:_:)``).
    private func noteQueued(_ key: String) { noteQueued(key, hasReplayableRecord(key) || isDroppedOnItsWay(key)) }

    /// The newest record of `key` that is not set aside.
    func latest(forKey key: String) -> PendingWrite? {
        guard let sequences = sequencesByKey[key] else { return nil }
        return sequences.reversed().lazy.compactMap { self.records[$0] }.first { !$0.isSetAside }
    }

    /// The writes of `keys` on their way to main: the newest record of each key that has one not set aside; the keys
    /// without one whose first attempt is on its way (the cache has its value); and the keys with neither whose record
    /// was dropped while a replay sends it (the drop took the cache's copy, and main may still apply it).
    ///
    /// - Parameter keys: The entries' keys.
    func waitingWrites(
        forKeys keys: [String]
    ) -> (latest: [String: PendingWrite], firstAttempts: Set<String>, droppedOnItsWay: Set<String>) {
        guard !sequencesByKey.isEmpty || !directKeys.isEmpty || inFlight != nil else { return ([:], [], []) }
        var found: [String: PendingWrite] = [:]
        var firstAttempts: Set<String> = []
        var dropped: Set<String> = []
        for key in keys where found[key] == nil {
            if let record = latest(forKey: key) {
                found[key] = record
            } else if directKeys[key] != nil {
                firstAttempts.insert(key)
            } else if isDroppedOnItsWay(key) {
                dropped.insert(key)
            }
        }
        return (found, firstAttempts, dropped)
    }

    /// The record numbered `sequence`.
    func record(_ sequence: UInt64) -> PendingWrite? { records[sequence] }

    /// The earliest ``PendingWrite/notBefore`` of a record that is replayed next: the first of its key that is not
    /// set aside. A later record of the key waits for that one, however soon its own backoff ends.
    var earliestRetry: Date? {
        var keys = Set<String>()
        var earliest: Date?
        for record in order.lazy.compactMap({ self.records[$0] }) where !record.isSetAside {
            guard keys.insert(record.key).inserted, let date = record.notBefore else { continue }
            earliest = min(earliest ?? date, date)
        }
        return earliest
    }

    /// Whether `record` is the earliest record of its key that is not set aside: a later one never goes first.
    private func isFirstOfItsKey(_ record: PendingWrite) -> Bool {
        for sequence in sequencesByKey[record.key] ?? [] {
            guard sequence < record.sequence else { return true }
            if records[sequence]?.isSetAside == false { return false }
        }
        return true
    }

    /// Removes one record, or one unreadable file by the number it is listed under (its file's); nothing when there
    /// is none. The repository that serves the outbox puts its cache back too, in the key's turn, whatever the calling
    /// task's cancellation: to the key's latest write that still waits, or, when none does, without the dropped value
    /// (the key's next read asks main). Code
    /// that runs inside a write of that repository to its cache (a cache source or a plugin of it) must not call it:
    /// it would wait for the turn that write holds.
    ///
    /// - Parameter sequence: The record's ``PendingWrite/sequence``.
    /// - Throws: ``Strata/StrataError/Code/io`` when the file cannot be removed.
    public func drop(_ sequence: UInt64) async throws {
        let replayable = records[sequence].flatMap { $0.isSetAside ? nil : [$0.key] } ?? []
        try await droppingRecords(of: replayable) { forgotten in
            try await lane.run {
                try await store.delete(KeyQuery(PendingWrite.storeKey(sequence)))
                unreadable.removeAll { $0.sequence == sequence }
                if sequence == inFlight?.sequence { inFlight?.isDropped = true }
                if let record = forget(sequence), !record.isSetAside { forgotten.append(record.key) }
            }
        }
    }

    /// Removes every record and every unreadable file; the repository that serves the outbox puts its cache back, as
    /// after ``drop(_:)``.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when a file cannot be removed. The store removes the files it can all
    ///   the same: the records and unreadable files whose files are gone are forgotten, and only those whose files are
    ///   still there stay.
    public func dropAll() async throws {
        let replayable = records.values.filter { !$0.isSetAside }.map(\.key)
        try await droppingRecords(of: replayable) { forgotten in try await dropAllInLane(&forgotten) }
    }

    /// ``dropAll()``'s work, in the outbox's lane: adds the keys of the records to replay it forgets to `forgotten`.
    private func dropAllInLane(_ forgotten: inout [String]) async throws {
        try await lane.run {
            do {
                try await store.delete(AllObjectsQuery())
            } catch {
                let kept = Set(store.sortedKeys())
                if let sent = inFlight?.sequence, !kept.contains(PendingWrite.storeKey(sent)) {
                    inFlight?.isDropped = true
                }
                let before = records
                forgetAll(but: kept)
                forgotten += before.filter { records[$0.key] == nil && !$0.value.isSetAside }.map(\.value.key)
                throw error
            }
            forgotten += records.values.filter { !$0.isSetAside }.map(\.key)
            let keys = Set(records.values.map(\.key))
            inFlight?.isDropped = true
            records = [:]
            order = []
            sequencesByKey = [:]
            valueBytes = 0
            unreadable = []
            for key in keys {
                noteQueued(key)
                changeBroadcaster.publish(.put(key: key))
            }
        }
    }
}

// MARK: - Changes, for the repository

extension Outbox {
    /// Starts a write of `key`: hands out its sequence number, and says whether its first attempt may go
    /// straight to main — only when nothing of `key` is queued or on its way; otherwise the write joins the queue
    /// behind the others.
    ///
    /// - Throws: ``Strata/StrataError/Code/corrupt`` while a record, an unreadable file or a write under way holds the
    ///   largest number (`UInt64.max`, which only follows a foreign or damaged file): no number is left after it. The
    ///   queued records are still replayed; once that one is sent or dropped, numbers are handed out again.
    func beginWrite(key: String) throws -> (sequence: UInt64, direct: Bool) {
        if nextSequence == nil {
            // Numbers are handed out again after the largest left: the order must not still hold removed ones, and no
            // write under way may hold one, which a new record would then share.
            order.removeAll { records[$0] == nil }
            let largest = [records.keys.max(), unreadable.compactMap(\.sequence).max(), unrecordedNumbers.max()]
            nextSequence = Self.number(after: largest.compactMap { $0 }.max() ?? 0)
        }
        guard let sequence = nextSequence else {
            throw StrataError(
                .corrupt,
                "The outbox in \(folder.path) holds a record numbered \(UInt64.max), the largest number, or a write so "
                    + "numbered is under way: no write can be numbered after it; send it (sync()) or drop it "
                    + "(drop(\(UInt64.max)))"
            )
        }
        nextSequence = Self.number(after: sequence)
        unrecordedNumbers.insert(sequence)
        guard !hasReplayableRecord(key), directKeys[key] == nil, !isDroppedOnItsWay(key) else {
            return (sequence, false)
        }
        directKeys[key] = 1
        return (sequence, true)
    }

    /// Ends a write ``beginWrite(key:)`` numbered `sequence` that leaves no record (or has one already): its number is
    /// no longer held, and a first attempt that went straight to main (`direct`) is over, which announces the key's
    /// change.
    func endWrite(_ sequence: UInt64, key: String, direct: Bool) {
        unrecordedNumbers.remove(sequence)
        guard direct, directKeys.removeValue(forKey: key) != nil else { return }
        changeBroadcaster.publish(.put(key: key))
    }

    /// Marks the record a replay sends now, and returns `true`; returns `false` and marks nothing when it may not go
    /// yet: it is gone, a first attempt of its key is on its way to main, or an earlier record of its key waits
    /// (one queued after the replay began — a first attempt that failed meanwhile — or one whose removal failed).
    func beginSending(_ sequence: UInt64) -> Bool {
        guard let record = records[sequence], directKeys[record.key] == nil, isFirstOfItsKey(record) else {
            return false
        }
        inFlight = InFlight(sequence: sequence, key: record.key)
        return true
    }

    /// Ends the send ``beginSending(_:)`` started. When it failed and a later write of the key arrived meanwhile
    /// that replaces it, the record goes now, as it would have gone had it not been on its way; the replacement
    /// keeps the later of the two backoffs, and the kind of its failure (``PendingWrite/keepBackoff(of:)``).
    ///
    /// - Parameter failed: Whether main refused the write with a retryable error (the record waits for a retry).
    func endSending(failed: Bool) async {
        guard let sending = inFlight else { return }
        inFlight = nil
        if sending.isDropped {
            // Dropped on its way: main has answered it, so the key is no longer pending for it.
            noteQueued(sending.key)
            changeBroadcaster.publish(.put(key: sending.key))
        }
        guard failed, let replacement = sending.replacedBy else { return }
        let sent = sending.sequence
        await lane.run {
            guard let old = records[sent], !old.isSetAside, var newer = records[replacement], !newer.isSetAside else {
                return
            }
            if newer.keepBackoff(of: [old]) {
                guard (try? await store.put(.record(newer), in: KeyQuery(PendingWrite.storeKey(replacement)))) != nil
                else { return }
                records[replacement] = newer
            }
            guard (try? await store.delete(KeyQuery(PendingWrite.storeKey(sent)))) != nil else { return }
            forget(sent)
        }
    }

    /// Which earlier queued records of its key a new record replaces.
    enum Replacing: Sendable {
        /// None: main receives every write.
        case nothing
        /// The puts: a delete makes them useless.
        case puts
        /// Every one: the last write wins.
        case everything

        /// Whether a new record replacing these replaces `old`.
        func replaces(_ old: PendingWrite) -> Bool {
            switch self {
            case .nothing: false
            case .puts: old.operation == .put
            case .everything: true
            }
        }
    }

    /// Adds a record durably, then removes the earlier queued records of its key that it makes useless.
    ///
    /// The new record is written before the old ones go, so a crash between leaves both, never neither. A record
    /// that replaces others keeps the latest backoff among them and the kind of their failure
    /// (``PendingWrite/keepBackoff(of:)``), so a replacement does not reach a main that is known to be down, or to
    /// refuse writes, sooner than the write it replaces would have.
    ///
    /// Once the new record is stored the write is queued: an old record whose file cannot be removed stays queued
    /// before it (main receives both, in order, and ends with the new value), and the call succeeds.
    ///
    /// - Parameters:
    ///   - record: The new record.
    ///   - replacing: Which earlier, queued records of the key the new one replaces. The one being sent stays until
    ///     its send ends (``endSending(failed:)``).
    /// - Returns: The record as stored.
    /// - Throws: ``Strata/StrataError/Code/tooLarge`` when the outbox is full (``limits``), or the store's error when
    ///   the new record could not be stored; nothing changed (``storeNew(_:)``).
    @discardableResult
    func append(_ record: PendingWrite, replacing: Replacing) async throws -> PendingWrite {
        try await lane.run {
            var record = record
            let replaced: [PendingWrite] =
                replacing == .nothing
                ? []
                : (sequencesByKey[record.key] ?? []).compactMap { records[$0] }.filter {
                    $0.sequence < record.sequence && !$0.isSetAside && replacing.replaces($0)
                }
            let cancelled = replaced.filter { $0.sequence != inFlight?.sequence }
            try checkRoom(for: record, freed: cancelled)
            record.keepBackoff(of: cancelled)
            try await storeNew(record)
            records[record.sequence] = record
            unrecordedNumbers.remove(record.sequence)
            valueBytes += record.value?.count ?? 0
            Self.insert(record.sequence, into: &order)
            Self.insert(record.sequence, into: &sequencesByKey[record.key, default: []])
            noteQueued(record.key)
            if replaced.count > cancelled.count { inFlight?.replacedBy = record.sequence }
            for old in cancelled where (try? await store.delete(KeyQuery(PendingWrite.storeKey(old.sequence)))) != nil {
                forget(old.sequence)
            }
            changeBroadcaster.publish(.put(key: record.key))
            return record
        }
    }

    /// Stores a new record, or throws with nothing stored.
    ///
    /// A put that throws may leave the record in the store (its file renamed into place, then its index line or a
    /// flush refused): kept, it would be replayed at a later launch, after the later writes of its key that the
    /// failure let go first. So it is removed before the error is thrown; one that cannot be removed either is
    /// stored after all, and the write is queued.
    private func storeNew(_ record: PendingWrite) async throws {
        let storeKey = PendingWrite.storeKey(record.sequence)
        do {
            _ = try await store.put(.record(record), in: KeyQuery(storeKey))
        } catch {
            guard store.sortedKeys().contains(storeKey) else { throw error }
            if (try? await store.delete(KeyQuery(storeKey))) != nil, !store.sortedKeys().contains(storeKey) {
                throw error
            }
        }
    }

    /// Throws ``Strata/StrataError/Code/tooLarge`` when `record` would take the outbox past its limits, counting the
    /// records it replaces as gone.
    private func checkRoom(for record: PendingWrite, freed: [PendingWrite]) throws {
        let count = records.count - freed.count
        let bytes = valueBytes - freed.reduce(0) { $0 + ($1.value?.count ?? 0) }
        let size = record.value?.count ?? 0
        if count >= limits.maximumWrites {
            throw StrataError(
                .tooLarge,
                "The outbox in \(folder.path) is full: it holds \(count) writes, its limit; the write of "
                    + "\(record.key) reached the cache but not the outbox"
            )
        }
        if size > limits.maximumBytes - bytes {
            throw StrataError(
                .tooLarge,
                "The outbox in \(folder.path) is full: its writes hold \(bytes) bytes of values and this one "
                    + "\(size), past its limit of \(limits.maximumBytes); the write of \(record.key) reached the "
                    + "cache but not the outbox"
            )
        }
    }

    /// Inserts `sequence` into ascending `sequences`: at the end, but for a number handed out again after the largest.
    private static func insert(_ sequence: UInt64, into sequences: inout ArraySlice<UInt64>) {
        if let last = sequences.last, last > sequence {
            sequences.insert(sequence, at: sequences.firstIndex { $0 > sequence } ?? sequences.endIndex)
        } else {
            sequences.append(sequence)
        }
    }

    /// Saves a changed record, unless it was dropped meanwhile; returns whether it was still there.
    ///
    /// The record changes in memory even when its file cannot be written (the error is thrown all the same): a
    /// pause or a set-aside mark then holds for this process, so a replay does not send the record again and again
    /// while the disk refuses; the file keeps the record as it was, which a later process replays.
    ///
    /// - Parameters:
    ///   - record: The record as it is to be saved.
    ///   - checkingRoom: Whether a value that grew (a merge to be sent) must fit in ``Limits/maximumBytes``; a
    ///     set-aside mark or a pause is saved whatever the record holds.
    /// - Throws: ``Strata/StrataError/Code/tooLarge``, nothing changed, when `checkingRoom` and the record's value grew
    ///   past what ``Limits/maximumBytes`` leaves room for.
    func update(_ record: PendingWrite, checkingRoom: Bool = false) async throws -> Bool {
        try await lane.run {
            guard let old = records[record.sequence] else { return false }
            let growth = (record.value?.count ?? 0) - (old.value?.count ?? 0)
            if checkingRoom, growth > 0, growth > limits.maximumBytes - valueBytes {
                throw StrataError(
                    .tooLarge,
                    "The outbox in \(folder.path) is full: its writes hold \(valueBytes) bytes of values, and the "
                        + "merged write of \(record.key) would add \(growth), past its limit of \(limits.maximumBytes)"
                )
            }
            records[record.sequence] = record
            valueBytes += growth
            if old.isSetAside != record.isSetAside {
                // A set-aside record no longer makes its key pending: a stream of the key shows it.
                noteQueued(record.key)
                changeBroadcaster.publish(.put(key: record.key))
            }
            _ = try await store.put(.record(record), in: KeyQuery(PendingWrite.storeKey(record.sequence)))
            return true
        }
    }

    /// Removes a record main took (or a resolver dropped).
    func remove(_ sequence: UInt64) async throws {
        try await lane.run {
            guard records[sequence] != nil else { return }
            try await store.delete(KeyQuery(PendingWrite.storeKey(sequence)))
            forget(sequence)
        }
    }

    /// Forgets in memory every record and unreadable file whose store key is not in `kept` (the files are gone).
    private func forgetAll(but kept: Set<String>) {
        let keepsForeign = kept.contains { PendingWrite.sequence(ofStoreKey: $0) == nil }
        unreadable.removeAll { file in
            file.sequence.map { !kept.contains(PendingWrite.storeKey($0)) } ?? !keepsForeign
        }
        for sequence in records.keys.sorted() where !kept.contains(PendingWrite.storeKey(sequence)) {
            forget(sequence)
        }
    }

    /// Forgets a removed record in memory and announces its key's change; returns the record, if there was one.
    @discardableResult
    private func forget(_ sequence: UInt64) -> PendingWrite? {
        guard let record = records.removeValue(forKey: sequence) else { return nil }
        valueBytes -= record.value?.count ?? 0
        if var sequences = sequencesByKey.removeValue(forKey: record.key) {
            if sequences.first == sequence {
                sequences.removeFirst()
            } else if let index = sequences.firstIndex(of: sequence) {
                sequences.remove(at: index)
            }
            if !sequences.isEmpty { sequencesByKey[record.key] = sequences }
            noteQueued(record.key)
        }
        if order.first == sequence {
            order.removeFirst()
        } else if order.count > 64, order.count > 2 * records.count {
            order.removeAll { records[$0] == nil }
        }
        changeBroadcaster.publish(.put(key: record.key))
        return record
    }
}

extension PendingWrite {
    /// Makes the record wait as long as the records it replaces: at least until their latest ``notBefore``, never
    /// less than it already waits, and as they failed (``Failure/answered`` when one did, which a main answering a
    /// read does not send before its backoff ends); returns whether that changed the record.
    @discardableResult
    mutating func keepBackoff(of replaced: [PendingWrite]) -> Bool {
        let waited = (notBefore, lastFailure)
        if let date = replaced.compactMap(\.notBefore).max(), notBefore.map({ $0 < date }) ?? true {
            notBefore = date
        }
        let failures = replaced.compactMap(\.lastFailure)
        if failures.contains(.answered) {
            lastFailure = .answered
        } else if lastFailure == nil {
            lastFailure = failures.first
        }
        return waited != (notBefore, lastFailure)
    }
}
