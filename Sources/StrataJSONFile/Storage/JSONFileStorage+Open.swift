import Foundation
import Strata
import StrataStorage

extension JSONFileStorage {
    /// The store kind written in the folder's marker.
    static let markerKind = "json"

    /// Opens the store's folder: claims it (one live store per folder, in this process or another), marks it
    /// as a JSON store, then replays the index (no entry file is read) or, when the index is missing or
    /// damaged, rebuilds it from the entry files.
    ///
    /// - Parameters:
    ///   - path: The store's folder; made when missing. A link as its last component is refused.
    ///   - now: The time, for naming files moved aside.
    ///   - expected: The folder's identity when a caller checked it first; it is then not made when missing.
    ///   - decodeHeader: Decodes an entry file's metadata; used only when rebuilding.
    /// - Throws: ``Strata/StrataError/Code/alreadyInUse`` when a live store holds the folder,
    ///   ``Strata/StrataError/Code/conflict`` when it is not `expected`, or missing then (nothing changed),
    ///   ``Strata/StrataError/Code/invalidArgument`` when it is another kind of store,
    ///   ``Strata/StrataError/Code/io``.
    static func open(
        path: String,
        durable: Bool,
        now: Date,
        expecting expected: FolderIdentity? = nil,
        maximumMetadataSize: Int = .max,
        decodeHeader: (Data) throws -> EntryHeader
    ) throws -> JSONFileStorage {
        let root: StoreFolder
        do {
            root = try StoreFolder.open(path, create: expected == nil, durable: durable)
        } catch {
            if let expected, error.isNotFound { throw StoreFolder.vanished(path, expected) }
            throw error.strataError("Opening the store folder")
        }
        try root.expect(expected)
        let ownership = try StoreOwnership.claim(root, mode: .exclusive, owner: "a JSONFileDataSource")
        do {
            try StoreMarker.adopt(root, kind: markerKind)
            var reports: [StrataError] = []
            let entries = try openEntriesFolder(in: root, now: now, reports: &reports)
            // One flush for the marker and the `entries` folder, either of which may have just been made.
            if durable {
                do { try root.sync() } catch { throw error.strataError("Flushing the store folder") }
            }
            var storage = JSONFileStorage(root: root, entries: entries, ownership: ownership, durable: durable)
            storage.maximumMetadataSize = maximumMetadataSize
            for report in reports { storage.record(report) }
            let previous = try StoreSession.read(in: root)
            try storage.openIndex(after: previous, now: now, decodeHeader: decodeHeader)
            try storage.recordSession(after: previous, now: now)
            return storage
        } catch {
            ownership.release()
            throw error
        }
    }

    /// Opens (or makes) the `entries` folder; a link there is removed, a file set aside, each reported.
    private static func openEntriesFolder(
        in root: StoreFolder,
        now: Date,
        reports: inout [StrataError]
    ) throws -> StoreFolder {
        for _ in 0..<3 {
            do throws(POSIXCallError) {
                if let folder = try root.subfolder(entriesName, create: true) { return folder }
            } catch {
                guard let report = try setAsideDamage(entriesName, in: root, error: error, now: now) else {
                    throw error.strataError("Opening the entry folder")
                }
                reports.append(report)
            }
        }
        throw StrataError(.io, "The entry folder \(root.qualified(entriesName)) keeps changing underneath the store")
    }

    /// Replays the index, or rebuilds it from the entry files when it is missing, damaged, cut short, or may
    /// lack lines of acknowledged durable writes (a durable session of another boot did not close). After a durable
    /// session of this boot that did not close, the entry files the index lacks are taken in.
    private mutating func openIndex(
        after previous: StoreSession.State?,
        now: Date,
        decodeHeader: (Data) throws -> EntryHeader
    ) throws {
        if let previous, !previous.isClean, previous.bootID != StoreSession.currentBootID {
            try rebuild(known: [:], now: now, decodeHeader: decodeHeader)
            return
        }
        let indexData: Data?
        do {
            indexData = try Self.contents(of: Self.indexName, in: root)
        } catch {
            // A link or a folder in the index's place: set aside, and the entry files are the truth.
            guard try setAsideDamage(Self.indexName, in: root, error: error, now: now) else {
                throw error.strataError("Reading the index")
            }
            indexData = nil
        }
        guard let indexData else {
            // A new store, or one whose index was deleted: the entry files are the truth.
            try rebuild(known: [:], now: now, decodeHeader: decodeHeader)
            return
        }
        let replay: IndexJournal.Replay
        do {
            replay = try IndexJournal.replay(indexData)
        } catch {
            try record(
                Self.setAside(
                    Self.indexName,
                    in: root,
                    now: now,
                    reason: "Damaged index (\(error)), rebuilt from the entry files",
                    underlying: error
                )
            )
            try rebuild(known: [:], now: now, decodeHeader: decodeHeader)
            return
        }
        if replay.hasTornTail {
            // An append cut short by a crash, or a journal cut anywhere: the entry files tell which.
            try rebuild(known: replay.records, now: now, decodeHeader: decodeHeader)
            return
        }
        var records = replay.records
        let measured = measureUnsizedEntries(in: &records, now: now)
        let renumbered = load(records, maxSequence: replay.maxSequence)
        // The journal read is at most `maximumFileSize`; what it holds is checked before anything is written.
        guard metadataSize <= maximumMetadataSize else { throw metadataTooLarge(metadataSize) }
        journalRecordCount = replay.recordCount
        if renumbered || measured || replay.recordCount > 2 * replay.records.count + 1024 {
            try compact(now: now)
        } else {
            try reopenJournal(now: now)
        }
        if let previous, !previous.isClean {
            // A process killed between a write's rename and its index line left a whole entry file the index lacks:
            // taken in now (only such files are read), or a removal of its key would leave it, and a later rebuild
            // would bring it back over what came since (an outbox's record, replayed after newer writes of its key).
            try adoptUnindexedEntries(now: now, decodeHeader: decodeHeader)
        }
    }

    /// The error of an open that found more keys and metadata than ``maximumMetadataSize``: `found` bytes so far.
    private func metadataTooLarge(_ found: Int) -> StrataError {
        StrataError(
            .tooLarge,
            "The entries of the store folder \(root.path) take more than its maximumMetadataSize of "
                + "\(maximumMetadataSize) bytes of keys and metadata (\(found) found); the store was not opened, and "
                + "evicted nothing"
        )
    }

    /// Records this session in the `session` file: a durable store writes its boot there (open, not clean)
    /// and from then on fsyncs no index line. Any other store removes the file of a session that closed cleanly,
    /// whose promise (the index is on the disk) its unsynced lines would break, and leaves the file of one that did
    /// not close as it is: that session's index lines may still be only in memory, and the file tells an open in a
    /// later boot to rebuild the index from the entry files, which hold every acknowledged durable write. What is at
    /// the name and is not a session file is set aside first (``setAsideForeignSession(_:now:)``).
    private mutating func recordSession(after previous: StoreSession.State?, now: Date) throws {
        try setAsideForeignSession(previous, now: now)
        guard durable, let bootID = StoreSession.currentBootID else {
            if previous?.isClean == true {
                do { try root.remove(StoreSession.fileName) } catch { throw error.strataError("Removing the session") }
            }
            syncsEveryJournalLine = durable
            return
        }
        try replace(
            StoreSession.fileName,
            with: StoreSession.bytes(of: .init(bootID: bootID, isClean: false)),
            now: now
        )
        sessionBootID = bootID
        syncsEveryJournalLine = false
    }

    /// Moves aside, and reports, what is at the `session` name and is not a session file the store wrote (a file of
    /// the user's that is not one, a pipe, a socket, a file it may not read), so that recording or keeping the
    /// session replaces or removes nothing of anyone else's. A folder there is set aside by ``replace(_:with:now:)``;
    /// a link is replaced as a link, never followed.
    ///
    /// - Parameter previous: What ``StoreSession/read(in:)`` found.
    private mutating func setAsideForeignSession(_ previous: StoreSession.State?, now: Date) throws {
        guard previous == nil || previous == .unreadable else { return }
        let kind: ItemKind?
        do { kind = try root.kind(of: StoreSession.fileName) } catch { throw error.strataError("Reading the session") }
        guard kind == .file || kind == .other else { return }
        record(try Self.setAside(StoreSession.fileName, in: root, now: now, reason: "Not a session file of the store"))
    }

    /// Rebuilds the index from the entry files, moving aside those that are damaged, and writes it.
    ///
    /// - Parameter known: What the journal said, when it could be read up to a cut: its records keep their
    ///   place in the recency order where the file agrees, and entries it lacks are reported.
    private mutating func rebuild(
        known: [String: IndexRecord],
        now: Date,
        decodeHeader: (Data) throws -> EntryHeader
    ) throws {
        var rebuilt: [String: IndexRecord] = [:]
        var maxSequence: UInt64 = 0
        var unknown = 0
        var metadataSize = 0
        try forEachEntryRecord(now: now, decode: decodeHeader) { storage, key, record in
            // Checked as each file is read: the files may hold more keys than memory.
            metadataSize += record.metadataSize(key: key)
            guard metadataSize <= storage.maximumMetadataSize else { throw storage.metadataTooLarge(metadataSize) }
            var record = record
            if let old = known[key], old.storedAt == record.storedAt, old.sequence > record.sequence {
                record.sequence = old.sequence
            } else if !known.isEmpty, known[key] == nil {
                unknown += 1
            }
            rebuilt[key] = record
            maxSequence = max(maxSequence, record.sequence)
        }
        if unknown > 0 {
            try record(
                Self.setAside(
                    Self.indexName,
                    in: root,
                    now: now,
                    reason: "The index was cut short and lacked \(unknown) entries that their files hold; rebuilt "
                        + "from the entry files"
                )
            )
        }
        load(rebuilt, maxSequence: max(maxSequence, known.values.map(\.sequence).max() ?? 0))
        try compact(now: now)
    }

    /// Gives each of `records` whose index line lacks its size (a journal written before sizes were kept) the size
    /// of its file, read without following a link, before the index is loaded; an entry whose file is missing or not
    /// a regular file counts 0 bytes (its next read finds it gone or damaged). An entry that cannot be reached (a
    /// shard folder that cannot be opened now) keeps no size, so the next open measures it again; meanwhile it counts
    /// 0, and the store still opens. Returns whether any was measured: the journal is then compacted, so this
    /// happens once.
    private mutating func measureUnsizedEntries(in records: inout [String: IndexRecord], now: Date) -> Bool {
        var measured = false
        for (key, record) in records where record.size == nil {
            let (shardName, file) = Self.location(of: key)
            let shard: StoreFolder?
            do { shard = try self.shard(shardName, create: false, now: now) } catch { continue }
            let status: stat?
            do { status = try shard?.status(of: file) } catch { continue }
            var size = 0
            if let status, StoreFolder.kind(mode: status.st_mode) == .file {
                size = min(Int(clamping: status.st_size), Self.maximumFileSize)
            }
            records[key]?.size = size
            measured = true
        }
        return measured
    }

    /// Calls `visit` with the key and the index record (its size included) of each intact entry file, as
    /// ``forEachEntryFile(now:_:)`` walks them, but for the files `skipping` names; damaged ones are set aside and
    /// reported. An intact file written with other coders ends the walk with its error when `refusesOtherCoders`
    /// (a rebuild: the index would lose it), and is otherwise reported and left where it is.
    mutating func forEachEntryRecord(
        now: Date,
        decode: (Data) throws -> EntryHeader,
        skipping: (String) -> Bool = { _ in false },
        refusesOtherCoders: Bool = true,
        _ visit: (inout JSONFileStorage, _ key: String, _ record: IndexRecord) throws -> Void
    ) throws {
        try forEachEntryFile(now: now) { storage, shard, folder, file in
            guard !skipping(file) else { return }
            let found: (key: String, record: IndexRecord)?
            do {
                found = try storage.entryRecord(of: file, in: folder, shard, now: now, decode: decode)
            } catch let error as StrataError where error.code == .dataSerialization && !refusesOtherCoders {
                storage.record(error)
                return
            }
            guard let (key, record) = found else { return }
            try visit(&storage, key, record)
        }
    }

    /// The key and index record of the entry file `file` in shard `shard`, checked: sealed or legacy, JSON, and
    /// holding a key whose file it is; the record's size is the file's. Damage is set aside and reported, and gives
    /// `nil`.
    private mutating func entryRecord(
        of file: String,
        in folder: StoreFolder,
        _ shard: String,
        now: Date,
        decode: (Data) throws -> EntryHeader
    ) throws -> (key: String, record: IndexRecord)? {
        let data: Data
        do {
            guard let read = try Self.contents(of: file, in: folder) else { return nil }
            data = read
        } catch {
            if try setAsideDamage(file, in: folder, error: error, now: now) { return nil }
            throw error.strataError("Reading the entry file")
        }
        let (json, isSealed): (Range<Int>, Bool)
        do {
            (json, isSealed) = try EntrySeal.unseal(data)
        } catch {
            try record(Self.setAside(file, in: folder, now: now, reason: "Damaged entry file (\(error.reason))"))
            return nil
        }
        do {
            let header: EntryHeader
            do {
                header = try decode(data[json])
            } catch  where isSealed {
                throw Self.writtenWithOtherCoders(file, error)
            }
            guard Self.location(of: header.key) == (shard, file) else {
                throw StrataError(
                    .corrupt,
                    "The file holds the key \(StrataError.quoted(key: header.key)) of another file"
                )
            }
            guard header.record.hasFiniteTimes else {
                throw StrataError(.corrupt, "The file's time or maximum age is not a finite number")
            }
            var record = header.record
            record.size = data.count
            return (header.key, record)
        } catch let error as StrataError where error.code == .dataSerialization && isSealed {
            throw error
        } catch {
            try record(
                Self.setAside(
                    file,
                    in: folder,
                    now: now,
                    reason: "Damaged entry file",
                    underlying: StrataError.serialization(error, "Decoding the entry file failed")
                )
            )
            return nil
        }
    }
}
