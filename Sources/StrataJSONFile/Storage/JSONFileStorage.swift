import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The mutable state behind a `JSONFileDataSource`: the index in memory, the open journal and the
/// file operations. Not thread-safe: the data source owns it inside a lock.
///
/// Layout of the store's folder:
///
/// ```
/// index.journal                      the index: an append-only journal (see IndexJournal)
/// entries/<h0h1>/<h0…h31>.json       one JSON file per entry, named by SHA-256 of the key
/// ```
struct JSONFileStorage: ~Copyable {
    let root: String
    let entriesFolder: String
    let indexPath: String
    let durable: Bool

    /// The live entries (expired ones included until cleanup).
    private(set) var records: [String: IndexRecord] = [:]
    /// Next LRU sequence to hand out.
    var nextSequence: UInt64 = 1
    /// Sequences in the order they were handed out; stale pairs are skipped (lazy deletion).
    private var recency: [(sequence: UInt64, key: String)] = []
    private var recencyStart = 0
    /// The keys in ascending order, until a key is added or removed.
    private var sortedKeysCache: [String]?
    /// Whether every index line is fsynced: a durable store on a platform without a boot identifier (see
    /// ``StoreSession``). Set when the store opens.
    var syncsEveryJournalLine: Bool
    /// The boot of this session, once a durable store has recorded it in its `session` file.
    var sessionBootID: String?
    /// The journal, open for appending.
    var journal: Int32 = -1
    /// How many records the journal holds beyond its header.
    var journalRecordCount = 0

    /// Reports made while the lock was held, delivered to the diagnostics closure after it is released.
    var pendingReports: [StrataError] = []
    /// The most recent corruption reports (the last 100).
    var corruptionReports: [StrataError] = []
    /// How many corrupt files were found since the store was opened.
    var corruptionCount = 0

    init(root: String, durable: Bool) {
        self.root = root
        self.entriesFolder = root + "/entries"
        self.indexPath = root + "/index.journal"
        self.durable = durable
        self.syncsEveryJournalLine = durable
    }

    deinit {
        if journal >= 0 {
            // A durable store closes cleanly: its index is flushed, so the next open may replay it whatever
            // happens to the machine meanwhile.
            if let sessionBootID, fsync(journal) == 0 {
                try? StoreSession.write(StoreSession.State(bootID: sessionBootID, isClean: true), root: root)
            }
            close(journal)
        }
    }

    // MARK: - Paths

    /// The folder and the path of the file of `key`.
    ///
    /// The hash is taken of the key's canonical composition (NFC), because Swift compares strings by
    /// canonical equivalence: `"e\u{301}"` and `"é"` are one key, so they must be one file.
    func location(of key: String) -> (folder: String, path: String) {
        let hash = Self.fileName(of: key)
        let folder = entriesFolder + "/" + String(hash.prefix(2))
        return (folder, folder + "/" + hash + ".json")
    }

    /// The file name stem of `key`: 32 hexadecimal digits of the SHA-256 of its NFC form.
    static func fileName(of key: String) -> String {
        // An ASCII string is its own NFC form: skip Foundation's normalization (a bridge to NSString on
        // Linux, which costs more than the hash) for the keys most apps use.
        SHA256.hex(of: key.utf8.allSatisfy { $0 < 0x80 } ? key : key.precomposedStringWithCanonicalMapping)
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

    /// Replaces the in-memory index (after opening or rebuilding).
    mutating func load(_ records: [String: IndexRecord], maxSequence: UInt64) {
        self.records = records
        nextSequence = maxSequence + 1
        sortedKeysCache = nil
        recency = records.map { (sequence: $0.value.sequence, key: $0.key) }.sorted { $0.sequence < $1.sequence }
        recencyStart = 0
    }

    private mutating func setRecord(_ record: IndexRecord, for key: String) {
        if records.updateValue(record, forKey: key) == nil { sortedKeysCache = nil }
        recency.append((record.sequence, key))
        compactRecencyIfNeeded()
    }

    private mutating func dropRecord(for key: String) {
        if records.removeValue(forKey: key) != nil { sortedKeysCache = nil }
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

    /// The keys from the most to the least recently used.
    func keysByRecency() -> [String] {
        records.sorted { $0.value.sequence > $1.value.sequence }.map(\.key)
    }

    // MARK: - Journal

    /// Appends one record to the journal; with `durable` (and `syncs`), fsyncs it.
    ///
    /// - Parameter syncs: `false` when the caller fsyncs the journal itself with ``syncJournal()``, after
    ///   other flushes of the same write.
    mutating func append(_ record: JournalRecord, syncs: Bool = true) throws {
        let line = IndexJournal.line(for: record)
        do {
            try POSIXFile.writeAll(journal, line, path: indexPath)
        } catch {
            throw StrataError.io("Appending to the index \(indexPath) failed", underlying: error)
        }
        journalRecordCount += 1
        if syncs { try syncJournal() }
    }

    /// Flushes the journal to the disk when the store fsyncs every index line.
    func syncJournal() throws {
        guard syncsEveryJournalLine, fsync(journal) != 0 else { return }
        throw StrataError.io(
            "Flushing the index \(indexPath) failed",
            underlying: POSIXFileError(call: "fsync", path: indexPath, code: errno)
        )
    }

    /// Compacts the journal when it holds far more records than live entries (reads append to it).
    mutating func compactIfLarge() throws {
        if journalRecordCount > 4 * records.count + 4096 { try compact() }
    }

    /// Rewrites the journal as one record per live entry, atomically, and reopens it for appending.
    mutating func compact() throws {
        do {
            try POSIXFile.writeAtomically(
                IndexJournal.snapshot(of: records),
                to: indexPath,
                folder: root,
                durable: durable
            )
        } catch {
            throw StrataError.io("Writing the index \(indexPath) failed", underlying: error)
        }
        journalRecordCount = records.count
        try reopenJournal()
    }

    mutating func reopenJournal() throws {
        if journal >= 0 { close(journal) }
        journal = -1
        do {
            journal = try POSIXFile.openForAppending(indexPath)
        } catch {
            throw StrataError.io("Opening the index \(indexPath) failed", underlying: error)
        }
    }

    // MARK: - Entries

    /// The bytes of the entry file of `key`; `nil` when the file is missing.
    func readEntry(_ key: String) throws -> Data? {
        let path = location(of: key).path
        do {
            return try POSIXFile.read(path)
        } catch {
            throw StrataError.io("Reading the entry file \(path) failed", underlying: error)
        }
    }

    /// Marks `key` most recently used.
    mutating func touch(_ key: String) throws {
        guard var record = records[key] else { return }
        record.sequence = nextSequence
        nextSequence += 1
        try append(.touch(key: key, sequence: record.sequence))
        setRecord(record, for: key)
        try compactIfLarge()
    }

    /// Hands out the next LRU sequence, for a write.
    mutating func takeSequence() -> UInt64 {
        defer { nextSequence += 1 }
        return nextSequence
    }

    /// Writes an entry file atomically, then records it in the index.
    ///
    /// A crash between the two leaves either the old record with the new file (the value is the new
    /// one) or, for a new key, an orphan file that the index does not name (the value is absent).
    ///
    /// When durable, the entry file is fsynced before its rename and its folder after it, before the write
    /// returns; the index line is not (see ``StoreSession``: a store left open by a session of another boot
    /// is rebuilt from its entry files), except where the platform gives no boot identifier.
    ///
    /// The temporary file is created in the store's root folder and renamed into its shard folder: on ext4,
    /// creating a file in one of the 256 shard folders (spread over the disk's block groups) cost 0.7–1.1 ms
    /// on the development machine, against 0.04 ms in the root folder. ``sweep(keepingHashes:syncsFolders:)``
    /// removes the temporary files a crash leaves in either place.
    mutating func write(_ data: Data, for key: String, record: IndexRecord) throws {
        let (folder, path) = location(of: key)
        do {
            let (entriesFolder, durable) = (self.entriesFolder, self.durable)
            try POSIXFile.writeAtomically(
                data,
                to: path,
                folder: folder,
                temporaryFolder: root,
                durable: durable,
                syncsFolder: false,
                makeFolder: {
                    try POSIXFile.makeFolder(folder)
                    if durable { try POSIXFile.syncFolder(entriesFolder) }
                }
            )
        } catch {
            throw StrataError.io("Writing the entry file \(path) failed", underlying: error)
        }
        try append(.put(key: key, record: record), syncs: false)
        setRecord(record, for: key)
        if durable {
            do {
                try POSIXFile.syncFolder(folder)
            } catch {
                throw StrataError.io("Flushing the entry folder \(folder) failed", underlying: error)
            }
            try syncJournal()
        }
        try compactIfLarge()
    }

    /// Removes the entry of `key`: its file, then its index record. Returns whether it existed.
    @discardableResult
    mutating func remove(_ key: String) throws -> Bool {
        guard records[key] != nil else { return false }
        let (folder, path) = location(of: key)
        do {
            try POSIXFile.remove(path)
            if durable { try POSIXFile.syncFolder(folder) }
        } catch {
            throw StrataError.io("Removing the entry file \(path) failed", underlying: error)
        }
        try forget(key)
        return true
    }

    /// Drops the index record of `key` without touching its file.
    mutating func forget(_ key: String) throws {
        guard records[key] != nil else { return }
        try append(.remove(key: key))
        dropRecord(for: key)
    }

    /// Removes every entry: an empty index first, then the entry files (corrupt files moved aside stay).
    mutating func removeAll() throws {
        load([:], maxSequence: nextSequence)
        try compact()
        // Durable: the removals are flushed too, or a rebuild after a crash of the machine (see
        // `StoreSession`) would bring the entries back.
        try sweep(keepingHashes: [], syncsFolders: durable)
    }

    /// Deletes temporary files, and entry files that no index record names, from the entry folders.
    ///
    /// Files moved aside as corrupt are kept.
    ///
    /// - Parameter syncsFolders: Whether each folder something was removed from is fsynced.
    func sweep(keepingHashes: Set<String>, syncsFolders: Bool = false) throws {
        do {
            for name in try POSIXFile.names(in: root) where name.hasPrefix(".tmp-") {
                try POSIXFile.remove(root + "/" + name)
            }
            for shard in try POSIXFile.names(in: entriesFolder) {
                let folder = entriesFolder + "/" + shard
                var removed = false
                for name in try POSIXFile.names(in: folder) {
                    if name.hasPrefix(".tmp-") {
                        try POSIXFile.remove(folder + "/" + name)
                    } else if name.hasSuffix(".json"), !keepingHashes.contains(String(name.dropLast(5))) {
                        try POSIXFile.remove(folder + "/" + name)
                        removed = true
                    }
                }
                if syncsFolders, removed { try POSIXFile.syncFolder(folder) }
            }
        } catch {
            throw StrataError.io("Cleaning the entry folder \(entriesFolder) failed", underlying: error)
        }
    }
}
