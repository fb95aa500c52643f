import Foundation
import Strata
import StrataStorage
internal import StrataSupport

/// The mutable state behind a `JSONFileDataSource`: the index in memory, the open journal and the
/// file operations. Not thread-safe: the data source owns it inside a lock.
///
/// Layout of the store's folder:
///
/// ```
/// .strata-store                      the marker: `strata-store 1 json`
/// .strata-lock                       the owner lock (see StoreOwnership)
/// index.journal                      the index: an append-only journal (see IndexJournal)
/// entries/<h0h1>/<h0…h31>.json       one JSON file per entry, named by SHA-256 of the key
/// ```
///
/// Every call on a file is made relative to a held folder descriptor and never follows a link (see
/// `StoreFolder`): a link, a folder or a file where the store expects something else is damage, reported and
/// set aside (a link removed, never its target), and the rest of the store goes on working.
struct JSONFileStorage: ~Copyable {
    /// The store's folder.
    let root: StoreFolder
    /// The `entries` folder.
    let entries: StoreFolder
    /// Whether writes are fsynced.
    let durable: Bool
    /// The exclusive hold on the folder, released when the storage goes.
    let ownership: StoreOwnership

    /// Shard folders kept open (at most ``maximumOpenShards`` across every store of the process): a write or a
    /// read of a kept shard opens no folder.
    var shards: [String: KeptShard] = [:]

    /// The live entries (expired ones included until cleanup).
    private(set) var records: [String: IndexRecord] = [:]
    /// The bytes of the live entries' files, as their records give them (an entry of at most
    /// ``maximumFileSize`` bytes each, so the sum cannot overflow in any index memory can hold).
    private(set) var totalSize = 0

    /// The bytes of keys and metadata the index holds (``IndexRecord/metadataSize(key:)``, summed).
    private(set) var metadataSize = 0

    /// The most ``metadataSize`` may be: an open that finds more fails, a write that alone takes more is refused.
    var maximumMetadataSize = Int.max
    /// Next LRU sequence to hand out.
    var nextSequence: UInt64 = 1
    /// Sequences in the order they were handed out; stale pairs are skipped (lazy deletion).
    private var recency: [(sequence: UInt64, key: String)] = []
    private var recencyStart = 0
    /// The keys in ascending order, until a key is added or removed.
    private var sortedKeysCache: [String]?

    /// The keys of the entries by tag, for the entries that have tags: group invalidation in time proportional to
    /// the group.
    private(set) var keysByTag: [String: Set<String>] = [:]
    /// Whether every index line is fsynced: a durable store on a platform without a boot identifier (see
    /// ``StoreSession``). Set when the store opens.
    var syncsEveryJournalLine: Bool
    /// The boot of this session, once a durable store has recorded it in its `session` file.
    var sessionBootID: String?
    /// The journal, open for appending.
    var journal: Int32 = -1
    /// How many records the journal holds beyond its header.
    var journalRecordCount = 0
    /// Whether the journal lacks a put the index holds: its entry file was in place when its line could not be
    /// appended. The next compaction (``compactIfLarge(now:)`` compacts then) writes the journal from the index.
    private var journalIsBehind = false

    /// Reports made while the lock was held, delivered to the diagnostics closure after it is released.
    var pendingReports: [StrataError] = []
    /// The most recent corruption reports (the last 100).
    var corruptionReports: [StrataError] = []
    /// How many corrupt files were found since the store was opened.
    var corruptionCount = 0

    /// The index's file name.
    static let indexName = "index.journal"
    /// The entry folder's name.
    static let entriesName = "entries"
    /// The largest file the store reads whole, an entry or the index (1 GiB). A put whose entry would be larger is
    /// refused (``Strata/StrataError/Code/tooLarge``), so a larger entry file was not written by the store: it is
    /// damage, set aside; a larger index is set aside and rebuilt from the entry files.
    static let maximumFileSize = 1 << 30
    /// The prefix of every temporary file the store makes.
    static let temporaryPrefix = ".strata-tmp-"
    /// The prefix of the temporary files of stores written before 2026-11-29; their leftovers are still removed
    /// when their contents prove an earlier store wrote them (``isLeftoverTemporary(_:in:)``).
    static let earlierTemporaryPrefix = ".tmp-"

    /// Whether `name` has the form of a temporary file's the store makes (or made, under
    /// ``earlierTemporaryPrefix``): the prefix and the random hexadecimal digits of
    /// ``StrataStorage/StoreFolder/createTemporary(prefix:)``, so a user's `.tmp-draft.txt` is never taken for one.
    static func isTemporaryName(_ name: String) -> Bool {
        StoreFolder.isTemporaryName(name, prefix: temporaryPrefix)
            || StoreFolder.isTemporaryName(name, prefix: earlierTemporaryPrefix)
    }
    /// The most shard folders kept open by all the JSON stores of the process together, a descriptor each
    /// (``KeptShard``): all 256 shards of one store where the process may open many files, so that a write or a
    /// read opens no folder (a miss costs `openat`, `fstat` and `close`), and never more than an eighth of the
    /// process's descriptor limit (256 on a default macOS shell: 32 shards).
    static let maximumOpenShards: Int = {
        guard let limit = FileDescriptor.openLimit else { return 32 }
        // Unlimited is the largest value: the minimum takes care of it.
        return Int(min(256, max(16, limit / 8)))
    }()

    /// Takes an opened, claimed store folder (see ``open(path:durable:now:decodeHeader:)``).
    init(root: StoreFolder, entries: StoreFolder, ownership: StoreOwnership, durable: Bool) {
        self.root = root
        self.entries = entries
        self.ownership = ownership
        self.durable = durable
        self.syncsEveryJournalLine = durable
    }

    deinit {
        if journal >= 0 {
            // A durable store closes cleanly: its index is flushed, so the next open may replay it whatever
            // happens to the machine meanwhile.
            if let sessionBootID, FileDescriptor.sync(journal) {
                let state = StoreSession.State(bootID: sessionBootID, isClean: true)
                try? root.writeAtomically(
                    StoreSession.bytes(of: state),
                    to: StoreSession.fileName,
                    temporaryPrefix: Self.temporaryPrefix,
                    durable: true
                )
            }
            close(journal)
        }
        ownership.release()
    }

    // MARK: - Names

    /// The shard folder's name and the file name of `key`'s entry.
    ///
    /// The hash is taken of the key's canonical composition (NFC), because Swift compares strings by
    /// canonical equivalence: `"e\u{301}"` and `"é"` are one key, so they must be one file.
    static func location(of key: String) -> (shard: String, file: String) {
        let hash = fileName(of: key)
        return (String(hash.prefix(2)), hash + ".json")
    }

    /// `entries/<shard>/<file>`, for messages and reports.
    static func relativePath(shard: String, file: String) -> String {
        entriesName + "/" + shard + "/" + file
    }

    /// The file name stem of `key`: 32 hexadecimal digits of the SHA-256 of its NFC form.
    static func fileName(of key: String) -> String {
        // The key rule of every store (see `KeyValueStore`); an ASCII key skips Foundation's normalization (a
        // bridge to NSString on Linux, which costs more than the hash).
        Hashing.collisionResistantName(of: StoreKey.canonical(key))
    }

    /// Whether `name` is a shard folder's name: two lowercase hexadecimal digits.
    static func isShardName(_ name: String) -> Bool {
        name.utf8.count == 2 && name.utf8.allSatisfy(isHexDigit)
    }

    /// Whether `name` is an entry file's name: 32 lowercase hexadecimal digits and `.json`.
    static func isEntryName(_ name: String) -> Bool {
        let bytes = name.utf8
        return bytes.count == 37 && name.hasSuffix(".json") && bytes.prefix(32).allSatisfy(isHexDigit)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }

    // MARK: - Index

    var count: Int { records.count }

    func record(for key: String) -> IndexRecord? { records[key] }

    /// Whether the entry's age has reached its maximum age (its own, or `defaultMaxAge`).
    func isExpired(_ record: IndexRecord, now: Date, defaultMaxAge: Double?) -> Bool {
        guard let maxAge = record.maxAge ?? defaultMaxAge else { return false }
        return now.timeIntervalSince1970 >= record.storedAt + maxAge
    }

    /// The keys in ascending order.
    mutating func sortedKeys() -> [String] {
        if let sortedKeysCache { return sortedKeysCache }
        let keys = records.keys.sorted()
        sortedKeysCache = keys
        return keys
    }

    /// The highest sequence a store hands out: 2^62 writes and reads are beyond any store's life, so a higher one
    /// was planted or damaged, and counting on from it would overflow.
    static let sequenceCeiling: UInt64 = 1 << 62

    /// Replaces the in-memory index (after opening or rebuilding); returns whether its sequences were numbered
    /// again from 1, in their order, because one reached ``sequenceCeiling`` (the journal must then be rewritten).
    @discardableResult
    mutating func load(_ records: [String: IndexRecord], maxSequence: UInt64) -> Bool {
        var records = records
        var maxSequence = maxSequence
        let renumbers = maxSequence >= Self.sequenceCeiling
        if renumbers {
            let order = records.sorted { $0.value.sequence < $1.value.sequence }.map(\.key)
            for (position, key) in order.enumerated() { records[key]?.sequence = UInt64(position) + 1 }
            maxSequence = UInt64(order.count)
        }
        self.records = records
        totalSize = records.values.reduce(0) { $0 + ($1.size ?? 0) }
        metadataSize = records.reduce(0) { $0 + $1.value.metadataSize(key: $1.key) }
        nextSequence = maxSequence + 1
        sortedKeysCache = nil
        keysByTag = [:]
        for (key, record) in records { index(key, tags: record.tags) }
        recency = records.map { (sequence: $0.value.sequence, key: $0.key) }.sorted { $0.sequence < $1.sequence }
        recencyStart = 0
        return renumbers
    }

    mutating func setRecord(_ record: IndexRecord, for key: String) {
        let old = records.updateValue(record, forKey: key)
        if old == nil { sortedKeysCache = nil }
        totalSize += (record.size ?? 0) - (old?.size ?? 0)
        metadataSize += record.metadataSize(key: key) - (old?.metadataSize(key: key) ?? 0)
        if old?.tags != record.tags {
            unindex(key, tags: old?.tags ?? [])
            index(key, tags: record.tags)
        }
        recency.append((record.sequence, key))
        compactRecencyIfNeeded()
    }

    private mutating func dropRecord(for key: String) {
        guard let old = records.removeValue(forKey: key) else { return }
        sortedKeysCache = nil
        totalSize -= old.size ?? 0
        metadataSize -= old.metadataSize(key: key)
        unindex(key, tags: old.tags)
    }

    private mutating func index(_ key: String, tags: [String]) {
        for tag in tags { keysByTag[tag, default: []].insert(key) }
    }

    private mutating func unindex(_ key: String, tags: [String]) {
        for tag in tags {
            keysByTag[tag]?.remove(key)
            if keysByTag[tag]?.isEmpty == true { keysByTag[tag] = nil }
        }
    }

    private mutating func compactRecencyIfNeeded() {
        let stored = recency.count - recencyStart
        guard stored > 2 * records.count + 1024 else { return }
        recency = recency[recencyStart...].filter { records[$0.key]?.sequence == $0.sequence }
        recencyStart = 0
    }

    /// The least recently used key.
    mutating func leastRecentlyUsedKey() -> String? {
        while recencyStart < recency.count {
            let (sequence, key) = recency[recencyStart]
            if records[key]?.sequence == sequence { return key }
            recencyStart += 1
        }
        return nil
    }

    /// The most recently used key: the one just written, after a write.
    func mostRecentlyUsedKey() -> String? {
        recency[recencyStart...].last { records[$0.key]?.sequence == $0.sequence }?.key
    }

    /// The keys from the most to the least recently used.
    func keysByRecency() -> [String] {
        records.sorted { $0.value.sequence > $1.value.sequence }.map(\.key)
    }

    // MARK: - Journal

    /// Appends one record to the journal; with `durable` (and `syncs`), fsyncs it.
    ///
    /// A journal a compaction could not open again (out of descriptors) is written from the index first. A line
    /// that cannot be written whole (a full disk) is cut back off the journal: a part left at its end would join the
    /// next line into one that fails its checksum, and the next open would set the whole index aside. When it cannot
    /// be cut, the journal is marked behind, and the next compaction writes it from the index.
    ///
    /// - Parameter syncs: `false` when the caller fsyncs the journal itself with ``syncJournal()``, after
    ///   other flushes of the same write.
    mutating func append(_ record: JournalRecord, syncs: Bool = true, now: Date) throws {
        if journal < 0 { try compact(now: now) }
        let line = IndexJournal.line(for: record)
        let length = FileDescriptor.regularFileSize(journal)
        let written = line.withUnsafeBytes { FileDescriptor.writeAll(journal, $0) }
        guard written else {
            let error = POSIXCallError.last("write", root.qualified(Self.indexName))
            if length < 0 || FileDescriptor.retryingInterrupts({ ftruncate(journal, off_t(length)) }) != 0 {
                journalIsBehind = true
            }
            throw error.strataError("Appending to the index")
        }
        journalRecordCount += 1
        if syncs { try syncJournal() }
    }

    /// Flushes the journal to the disk when the store fsyncs every index line.
    func syncJournal() throws {
        guard syncsEveryJournalLine, !FileDescriptor.sync(journal) else { return }
        throw POSIXCallError.last("fsync", root.qualified(Self.indexName)).strataError("Flushing the index")
    }

    /// Compacts the journal when it holds far more records than live entries (reads append to it), or lacks a put
    /// the index holds.
    mutating func compactIfLarge(now: Date) throws {
        if journalIsBehind || journalRecordCount > 4 * records.count + 4096 { try compact(now: now) }
    }

    /// Rewrites the journal as one record per live entry, atomically, and reopens it for appending.
    mutating func compact(now: Date) throws {
        try replace(Self.indexName, with: [UInt8](IndexJournal.snapshot(of: records)), now: now)
        journalRecordCount = records.count
        journalIsBehind = false
        try reopenJournal(now: now)
    }

    /// Opens the journal for appending, never writing through anything but the store's own file: a symbolic link
    /// is refused by `O_NOFOLLOW`; a file with another hard link (one planted while the store was closed would have
    /// every put appended to a file outside the store) or a special file is replaced, by rename, with a journal
    /// written from the index, and reported — the other name keeps its bytes.
    mutating func reopenJournal(now: Date) throws {
        if journal >= 0 { close(journal) }
        journal = -1
        for attempt in 0..<2 {
            let fd: Int32
            do {
                // O_NONBLOCK: a pipe planted at the name cannot hang the open.
                fd = try root.openFile(Self.indexName, O_WRONLY | O_APPEND | O_NONBLOCK)
            } catch {
                guard attempt == 0, error.code == ENXIO else { throw error.strataError("Opening the index") }
                try replaceForeignJournal(now: now)
                continue
            }
            if FileDescriptor.isSoleRegularFile(fd) {
                journal = fd
                return
            }
            close(fd)
            guard attempt == 0 else { break }
            try replaceForeignJournal(now: now)
        }
        throw StrataError(.io, "The index \(root.qualified(Self.indexName)) keeps being replaced underneath the store")
    }

    /// Writes the journal anew from the index, by rename over what is at its name (a second hard link to a file
    /// elsewhere, a pipe), and reports it.
    private mutating func replaceForeignJournal(now: Date) throws {
        try replace(Self.indexName, with: [UInt8](IndexJournal.snapshot(of: records)), now: now)
        journalRecordCount = records.count
        record(
            StrataError(
                .corrupt,
                "The index \(root.qualified(Self.indexName)) was not the store's own file (another hard link, or not "
                    + "a regular file): replaced with one written from the index; the other name keeps its bytes"
            )
        )
    }

    // MARK: - Entries

    /// The bytes of the entry file of `key`; `nil` when there is none.
    ///
    /// A link or a folder in its place is damage: reported and set aside (the link removed), and a miss.
    mutating func readEntry(_ key: String, now: Date) throws -> Data? {
        let (shardName, file) = Self.location(of: key)
        guard let shard = try shard(shardName, create: false, now: now) else { return nil }
        do {
            return try Self.contents(of: file, in: shard)
        } catch {
            if try setAsideDamage(file, in: shard, error: error, now: now) { return nil }
            throw error.strataError("Reading the entry file")
        }
    }

    /// Reads a whole regular file of at most ``maximumFileSize`` bytes; `nil` when nothing is at `name`.
    ///
    /// - Throws: ``StrataStorage/POSIXCallError``, as ``StrataStorage/StoreFolder/readFile(_:limit:)`` does.
    static func contents(of name: String, in folder: StoreFolder) throws(POSIXCallError) -> Data? {
        try folder.readFile(name, limit: maximumFileSize)
    }

    /// Marks `key` most recently used.
    ///
    /// - Parameter keepingOnFailure: Whether a line that cannot be appended (a full disk) still marks the entry used,
    ///   in memory, with the journal marked behind for the next compaction to write, and throws nothing: a read
    ///   whose value is good does not fail for its recency line.
    mutating func touch(_ key: String, now: Date, keepingOnFailure: Bool = false) throws {
        guard var record = records[key] else { return }
        record.sequence = nextSequence
        nextSequence += 1
        do {
            try append(.touch(key: key, sequence: record.sequence), now: now)
        } catch {
            guard keepingOnFailure else { throw error }
            journalIsBehind = true
            setRecord(record, for: key)
            return
        }
        setRecord(record, for: key)
        try compactIfLarge(now: now)
    }

    /// Replaces the stored date, maximum age and freshness date of `key`'s entry with one index line, leaving its
    /// file and its place in the LRU order; returns whether there was an entry.
    mutating func renew(
        _ key: String,
        storedAt: Double,
        maxAge: Double?,
        freshUntil: Double?,
        tags: [String],
        now: Date
    ) throws -> Bool {
        guard var record = records[key] else { return false }
        record.storedAt = storedAt
        record.maxAge = maxAge
        record.freshUntil = freshUntil
        if !tags.isEmpty { record.tags = tags }
        try checkMetadata(of: record, key: key)
        try append(.put(key: key, record: record), now: now)
        setRecord(record, for: key)
        try compactIfLarge(now: now)
        return true
    }

    /// Refuses (``Strata/StrataError/Code/tooLarge``) a record whose key and tags alone take more than
    /// ``maximumMetadataSize``.
    private func checkMetadata(of record: IndexRecord, key: String) throws(StrataError) {
        let metadata = record.metadataSize(key: key)
        guard metadata <= maximumMetadataSize else {
            throw StrataError(
                .tooLarge,
                "The key and tags of \(StrataError.quoted(key: key)) take \(metadata) bytes, more than the store's "
                    + "maximumMetadataSize of \(maximumMetadataSize)"
            )
        }
    }

    /// Hands out the next LRU sequence, for a write.
    mutating func takeSequence() -> UInt64 {
        defer { nextSequence += 1 }
        return nextSequence
    }

    /// Writes an entry file atomically, then records it in the index.
    ///
    /// A crash between the two leaves either the old record with the new file (the value is the new
    /// one) or, for a new key, a file that the index does not name (the next cleanup takes it in). An index
    /// line that cannot be appended once the file is in place still gives the entry its new record in memory; the
    /// journal is then written from the index at once, or at the next compaction, and the write throws only when
    /// that fails too.
    ///
    /// When durable, the entry file is fsynced before its rename and its folder after it, before the write
    /// returns; the index line is not (see ``StoreSession``: a store left open by a session of another boot
    /// is rebuilt from its entry files), except where the platform gives no boot identifier.
    ///
    /// The temporary file is created exclusively, under an unpredictable name, in the store's root folder and
    /// renamed into its shard folder: on ext4, creating a file in one of the 256 shard folders (spread over
    /// the disk's block groups) cost 0.7–1.1 ms on the development machine, against 0.04 ms in the root
    /// folder. ``forEachEntryFile(now:_:)`` removes the temporary files a crash leaves.
    ///
    /// An entry file larger than `maxSize` or than ``maximumFileSize``, or a key and tags that alone take more than
    /// ``maximumMetadataSize``, is refused (``Strata/StrataError/Code/tooLarge``), nothing written.
    mutating func write(_ data: Data, for key: String, record: IndexRecord, maxSize: Int?, now: Date) throws {
        try checkMetadata(of: record, key: key)
        let limit = min(maxSize ?? Self.maximumFileSize, Self.maximumFileSize)
        guard data.count <= limit else {
            throw StrataError(
                .tooLarge,
                "The entry of \(StrataError.quoted(key: key)) is \(data.count) bytes, over the store's limit of \(limit) "
                    + "bytes"
            )
        }
        let (shardName, file) = Self.location(of: key)
        let shardFolder: StoreFolder
        do {
            let (fd, temporary) = try root.createTemporary(prefix: Self.temporaryPrefix)
            do throws(POSIXCallError) {
                let written = data.withUnsafeBytes { FileDescriptor.writeAll(fd, $0) }
                guard written else { throw .last("write", root.qualified(temporary)) }
                if durable, !FileDescriptor.sync(fd) { throw .last("fsync", root.qualified(temporary)) }
                close(fd)
            } catch {
                close(fd)
                _ = try? root.remove(temporary)
                throw error
            }
            do {
                shardFolder = try moveIntoShard(temporary, shardName: shardName, file: file, now: now)
            } catch {
                _ = try? root.remove(temporary)
                throw error
            }
        } catch let error as POSIXCallError {
            throw error.strataError("Writing the entry file \(Self.relativePath(shard: shardName, file: file))")
        }
        let appended = Result { try append(.put(key: key, record: record), syncs: false, now: now) }
        // The file is in place whether or not its line is: the index describes the file.
        setRecord(record, for: key)
        if case .failure(let error) = appended {
            journalIsBehind = true
            guard (try? compact(now: now)) != nil else { throw error }
        }
        if durable {
            do {
                // The folder the file was renamed into, kept open or not (the kept shards are a shared allowance).
                try shardFolder.sync()
            } catch {
                throw error.strataError("Flushing the entry folder")
            }
            try syncJournal()
        }
        try compactIfLarge(now: now)
    }

    /// Renames the temporary file into the shard folder as `file`: a folder, a pipe, a socket or a device in the
    /// way is set aside (never replaced, which would delete it), a shard folder removed underneath is made again,
    /// each once.
    ///
    /// - Returns: The shard folder the file is in now, for a durable write to flush.
    private mutating func moveIntoShard(
        _ temporary: String,
        shardName: String,
        file: String,
        now: Date
    ) throws -> StoreFolder {
        for attempt in 0..<3 {
            guard let shard = try shard(shardName, create: true, now: now) else { break }
            try setAsideIfNotAFile(file, in: shard, now: now)
            do {
                try root.rename(temporary, to: file, in: shard)
                return shard
            } catch {
                guard attempt < 2 else { throw error }
                if error.isNotFound {
                    shards[shardName] = nil
                } else if error.isWrongKind || error.code == ENOTEMPTY || error.code == EEXIST {
                    try record(Self.setAside(file, in: shard, now: now, reason: "A folder where an entry file belongs"))
                } else {
                    throw error
                }
            }
        }
        throw POSIXCallError(call: "renameat", path: root.qualified(temporary), code: ENOENT)
    }

    /// Sets aside a pipe, a socket or a device at an entry's name: not the store's, so never deleted or replaced.
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    private mutating func setAsideIfNotAFile(_ file: String, in shard: StoreFolder, now: Date) throws -> Bool {
        guard (try? shard.kind(of: file)) == .other else { return false }
        try record(Self.setAside(file, in: shard, now: now, reason: "Not a regular file where an entry file belongs"))
        return true
    }

    /// Removes the entry of `key`: its file, then its index record. Returns whether it existed.
    ///
    /// A key the index lacks still has the file at its own name removed, when there is one: a put killed between
    /// its rename and its index line in a store that keeps no `session` file leaves it, and
    /// ``adoptUnindexedEntries(now:decodeHeader:)`` would otherwise take it back in after the app removed the key.
    /// Only that name is touched, never through a link; something other than a regular file there is set aside.
    @discardableResult
    mutating func remove(_ key: String, now: Date) throws -> Bool {
        let indexed = records[key] != nil
        let removedFile = try removeEntryFile(of: key, syncing: indexed, now: now)
        guard indexed else { return removedFile }
        try forget(key, now: now)
        return true
    }

    /// Unlinks the entry file of `key` (a link at its name is removed, never followed; a pipe, a socket, a device or
    /// a folder there is set aside as damage) and, in a durable store, flushes its shard folder when `syncing` or a
    /// file went.
    ///
    /// - Returns: Whether a file was unlinked.
    private mutating func removeEntryFile(of key: String, syncing: Bool, now: Date) throws -> Bool {
        let (shardName, file) = Self.location(of: key)
        guard let shard = try shard(shardName, create: false, now: now) else { return false }
        do {
            let removed = try setAsideIfNotAFile(file, in: shard, now: now) ? false : shard.remove(file)
            if durable, syncing || removed { try shard.sync() }
            return removed
        } catch let error as POSIXCallError {
            if try !setAsideDamage(file, in: shard, error: error, now: now) {
                throw error.strataError("Removing the entry file")
            }
            return false
        }
    }

    /// Drops the index record of `key` without touching its file.
    mutating func forget(_ key: String, now: Date) throws {
        guard records[key] != nil else { return }
        try append(.remove(key: key), now: now)
        dropRecord(for: key)
    }

    /// Removes every entry: the store's entry and temporary files first, every one tried, then the index records
    /// of the entries whose files went (files moved aside as corrupt, and every file the store did not name,
    /// stay). The index never lacks a file still there, which ``adoptUnindexedEntries(now:decodeHeader:)`` or a
    /// rebuild would take back in: a crash part-way leaves the entries not yet removed indexed, and an entry whose
    /// file cannot be removed stays.
    ///
    /// - Throws: The first failure to remove an entry file, once the index is written.
    mutating func removeAll(now: Date) throws {
        let (isKept, failure) = removeEntryFiles(now: now)
        load(records.filter { isKept(Self.location(of: $0.key).file) }, maxSequence: nextSequence)
        try compact(now: now)
        if let failure { throw failure }
    }
}
