import Foundation
import Strata
import StrataStorage

/// Reads a ``JSONFileDataSource`` folder without opening the store, for tools such as `strata`: lists the
/// entries from the index and checks every entry file, changing nothing.
///
/// Opening a store may compact its index, rebuild it and move damaged files aside; an inspector only reads,
/// so a damaged file is reported where it is. It acts only on a folder that carries a JSON store's marker
/// (`.strata-store`, written by the store), never follows a link inside it, and holds the folder as ``access``
/// says while it lives: ``Strata/StoreAccess/readOnly`` shares it with other readers (and creates nothing, so
/// read-only media work), ``Strata/StoreAccess/readWrite`` holds it alone, as a store does.
///
/// ```swift
/// let report = try JSONFileStoreInspector(folder: usersFolder, access: .readOnly).report(verifying: true)
/// let damaged = report.entries.filter(\.isDamaged)
/// ```
public struct JSONFileStoreInspector: Sendable, StoreInspecting {
    /// The store's folder.
    public let folderURL: URL

    /// How the folder is held.
    public var access: StoreAccess { inspection.access }

    /// The most bytes of keys and metadata ``report(verifying:progress:)`` takes into memory, counted as the store
    /// counts them (``JSONFileDataSource/Configuration/maximumMetadataSize``).
    public var maximumMetadataSize: Int { inspection.maximumMetadataSize }

    private let inspection: StoreInspection
    private var folder: StoreFolder { inspection.folder }

    /// Opens the store in `folder` for inspection.
    ///
    /// - Parameters:
    ///   - folder: A store's folder (``JSONFileDataSource/Configuration/folder``).
    ///   - access: ``Strata/StoreAccess/readOnly`` (a shared hold; nothing is created or changed) or
    ///     ``Strata/StoreAccess/readWrite`` (an exclusive hold, as a store's).
    ///   - maximumMetadataSize: The most bytes of keys and metadata a report takes into memory: the store's
    ///     ``JSONFileDataSource/Configuration/maximumMetadataSize``; `nil` for its default (256 MiB).
    /// - Throws: ``Strata/StrataError/Code/notFound`` when the folder does not exist,
    ///   ``Strata/StrataError/Code/invalidArgument`` when it carries no JSON store's marker (or is a link),
    ///   ``Strata/StrataError/Code/alreadyInUse`` when a store or inspector holds it in a way that excludes
    ///   this one.
    public init(folder: URL, access: StoreAccess, maximumMetadataSize: Int? = nil) throws {
        try self.init(folder: folder, access: access, expecting: nil, maximumMetadataSize: maximumMetadataSize)
    }

    /// The inspector of a folder opened and claimed for it.
    package init(_ inspection: StoreInspection) {
        self.inspection = inspection
        folderURL = inspection.url.standardizedFileURL
    }

    /// A JSON-file store's marker kind: `json`.
    package static var markerKind: String { JSONFileStorage.markerKind }

    /// "JSON-file store", in messages.
    package static var kindName: String { "JSON-file store" }

    /// The folder's standardized path, as ``folderURL`` names it.
    package static func storePath(of folder: URL) -> String { folder.standardizedFileURL.path }

    /// The identity of the folder inspected, which a store opened on it after ``close()`` must have.
    package var folderIdentity: FolderIdentity { folder.identity }

    /// Gives the folder up before the inspector goes (so that a store may open it); the inspector reads
    /// nothing more after.
    public func close() {
        inspection.ownership.release()
    }

    /// Whether `folder` is a ``JSONFileDataSource`` folder: it carries a JSON store's marker. Nothing else
    /// counts (an `entries` folder, an `index.journal`): a foreign folder is never taken for a store.
    ///
    /// - Parameter folder: Any folder.
    public static func isStore(at folder: URL) -> Bool {
        StoreFolder.isStore(at: folder.standardizedFileURL.path, kind: JSONFileStorage.markerKind)
    }

    /// Lists the entries the index names, with their files' sizes; with `verifying`, also reads and decodes
    /// every entry file and checks it holds its key.
    ///
    /// Only the envelope (key, dates, sequence) is decoded; the value is checked to be well-formed JSON,
    /// not decoded as the app's type. When the index is missing or damaged, the entries come from the
    /// entry files, as the store rebuilds them.
    ///
    /// - Parameters:
    ///   - verifying: Whether to read and decode every entry file.
    ///   - progress: Called after each entry with the number of entries read so far.
    /// - Throws: ``Strata/StrataError/Code/io`` when a folder cannot be listed;
    ///   ``Strata/StrataError/Code/tooLarge`` when the entries take more than ``maximumMetadataSize`` bytes of keys
    ///   and metadata (files planted under long keys, or a store whose app raised its limit: give the inspector the
    ///   app's), as the store's open does: the index is checked once replayed, entry files as each is read.
    public func report(verifying: Bool, progress: (Int) -> Void = { _ in }) throws -> JSONFileStoreReport {
        let files = try entryFiles()
        var indexProblem: String?
        let indexData: Data?
        do {
            indexData = try JSONFileStorage.contents(of: JSONFileStorage.indexName, in: folder)
        } catch {
            // What the store sets aside and rebuilds from the entry files (a link, a folder, a special file, a sparse
            // terabyte) is damage here too; any other failure (permissions, an I/O error) is not.
            guard JSONFileStorage.isForeign(error) else { throw error.strataError("Reading the index") }
            indexData = nil
            indexProblem =
                error.isTooLong ? "index.journal is too large to be the store's" : "index.journal is not a regular file"
        }
        var records: [String: IndexRecord]?
        if let indexData {
            do {
                let replay = try IndexJournal.replay(indexData)
                records = replay.records
                if replay.hasTornTail { indexProblem = "index.journal ends in an incomplete line" }
            } catch {
                indexProblem = "damaged index.journal (\(error))"
            }
        } else if !files.isEmpty, indexProblem == nil {
            indexProblem = "missing index.journal"
        }
        guard let records else {
            // As the store rebuilds: every entry file is read.
            var entries: [JSONFileStoreEntry] = []
            var metadataSize = 0
            for (position, path) in files.sorted().enumerated() {
                entries.append(check(path: path, key: nil, record: nil, metadataSize: &metadataSize))
                guard metadataSize <= maximumMetadataSize else { throw metadataTooLarge(metadataSize) }
                progress(position + 1)
            }
            return JSONFileStoreReport(entries: entries, indexProblem: indexProblem, orphans: [])
        }
        // As the store's open: the replayed index is checked before anything else is read.
        let metadataSize = records.reduce(0) { sum, element in
            let (total, overflow) = sum.addingReportingOverflow(element.value.metadataSize(key: element.key))
            return overflow ? .max : total
        }
        guard metadataSize <= maximumMetadataSize else { throw metadataTooLarge(metadataSize) }
        var ignored = 0
        var named: Set<String> = []
        var entries: [JSONFileStoreEntry] = []
        entries.reserveCapacity(records.count)
        for (position, key) in records.keys.sorted().enumerated() {
            let path = Self.relativePath(of: key)
            named.insert(path)
            guard let record = records[key] else { continue }
            entries.append(
                verifying
                    ? check(path: path, key: key, record: record, metadataSize: &ignored)
                    : describe(path: path, key: key, record: record)
            )
            progress(position + 1)
        }
        let orphans = files.filter { !named.contains($0) }.sorted()
        return JSONFileStoreReport(entries: entries, indexProblem: indexProblem, orphans: orphans)
    }

    /// The error of a report that found more keys and metadata than ``maximumMetadataSize``: `found` bytes so far.
    private func metadataTooLarge(_ found: Int) -> StrataError {
        StrataError(
            .tooLarge,
            "The entries of the store folder \(folder.path) take more than its maximumMetadataSize of "
                + "\(maximumMetadataSize) bytes of keys and metadata (\(found) found); nothing more was read"
        )
    }

    /// Reads the value stored under `key` from its entry file, changing nothing.
    ///
    /// A store opened elsewhere would move a damaged file aside; an inspector only reports it, as a thrown
    /// error.
    ///
    /// - Parameters:
    ///   - key: The entry's key, as ``JSONFileStoreEntry/key`` names it.
    ///   - type: The type the store's values have.
    ///   - decoder: Decodes the value, configured as the store's own
    ///     (``JSONFileDataSource/Configuration/makeDecoder``).
    /// - Returns: The value; `nil` when no entry file holds the key.
    /// - Throws: ``Strata/StrataError/Code/dataSerialization`` for a damaged file, a file of another key or a value
    ///   that does not decode as `type`; ``Strata/StrataError/Code/io`` when the file cannot be read.
    public func value<Value: Decodable>(
        forKey key: String,
        as type: Value.Type = Value.self,
        decoder: JSONDecoder = JSONDecoder()
    ) throws -> Value? {
        let data: Data?
        do {
            data = try contents(of: Self.relativePath(of: key))
        } catch {
            throw error.strataError("Reading the entry of key \(StrataError.quoted(key: key))")
        }
        guard let data else { return nil }
        let json: Range<Int>
        do {
            json = try EntrySeal.unseal(data).json
        } catch {
            throw StrataError(
                .dataSerialization,
                "The entry file of key \(StrataError.quoted(key: key)) is damaged (\(error.reason))"
            )
        }
        let envelope: ValueEnvelope<Value>
        do {
            envelope = try decoder.decode(ValueEnvelope<Value>.self, from: data[json])
        } catch {
            throw StrataError.serialization(
                error,
                "The entry of key \(StrataError.quoted(key: key)) does not decode as \(Value.self)"
            )
        }
        guard envelope.key == key else {
            throw StrataError(
                .dataSerialization,
                "The entry file of key \(StrataError.quoted(key: key)) holds the key "
                    + StrataError.quoted(key: envelope.key)
            )
        }
        return envelope.value
    }

    /// `entries/<ab>/<hash>.json` for `key`.
    private static func relativePath(of key: String) -> String {
        let (shard, file) = JSONFileStorage.location(of: key)
        return JSONFileStorage.relativePath(shard: shard, file: file)
    }

    /// The entry files (regular files with an entry's name) in the real shard folders, as paths inside the
    /// store's folder. Links are not followed.
    private func entryFiles() throws -> [String] {
        do {
            guard let entries = try folder.subfolder(JSONFileStorage.entriesName, create: false) else { return [] }
            // Walked name by name: only the entry files' names are kept, however many others the folders hold.
            var files: [String] = []
            try entries.forEachItem { shard, kind in
                guard kind == .folder, JSONFileStorage.isShardName(shard),
                    let shardFolder = try entries.subfolder(shard, create: false)
                else { return }
                try shardFolder.forEachItem { file, kind in
                    guard kind == .file, JSONFileStorage.isEntryName(file) else { return }
                    files.append(JSONFileStorage.relativePath(shard: shard, file: file))
                }
            }
            return files
        } catch let error as POSIXCallError {
            if error.isLink || error.isWrongKind { return [] }
            throw error.strataError("Listing the entry folder")
        }
    }

    /// The bytes of the file at `path` (`entries/<shard>/<file>`), reached without following a link; `nil`
    /// when missing.
    private func contents(of path: String) throws(POSIXCallError) -> Data? {
        let parts = Self.components(of: path)
        guard parts.count == 3,
            let entries = try folder.subfolder(parts[0], create: false),
            let shard = try entries.subfolder(parts[1], create: false)
        else { return nil }
        return try JSONFileStorage.contents(of: parts[2], in: shard)
    }

    /// The names of a path's components, split at the `/` bytes (a file name of the folder may begin with a
    /// combining mark, which a split by `Character` would join with the slash before it).
    private static func components(of path: String) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/")).map { String(Substring($0)) }
    }

    /// An entry from its index record and its file's size.
    private func describe(path: String, key: String, record: IndexRecord) -> JSONFileStoreEntry {
        let size = (try? contentsSize(of: path)) ?? nil
        return JSONFileStoreEntry(
            key: key,
            path: path,
            fileSize: size,
            storedAt: Date(timeIntervalSince1970: record.storedAt),
            maxAge: record.maxAge,
            sequence: record.sequence,
            problem: size == nil ? "file missing" : nil
        )
    }

    /// The size of the regular file at `path`; `nil` when missing or not a regular file.
    private func contentsSize(of path: String) throws(POSIXCallError) -> Int? {
        let parts = Self.components(of: path)
        guard parts.count == 3,
            let entries = try folder.subfolder(parts[0], create: false),
            let shard = try entries.subfolder(parts[1], create: false),
            let info = try shard.status(of: parts[2]),
            StoreFolder.kind(mode: info.st_mode) == .file
        else { return nil }
        return Int(info.st_size)
    }

    /// An entry from its file, read and decoded; `key` and `record` are what the index says, if known.
    ///
    /// - Parameter metadataSize: The bytes of keys and metadata read so far, to which the key and tags the file gives
    ///   add as the store's rebuild counts them when `record` is `nil` (no index gave the key).
    private func check(
        path: String,
        key: String?,
        record: IndexRecord?,
        metadataSize: inout Int
    ) -> JSONFileStoreEntry {
        var entry = JSONFileStoreEntry(
            key: key,
            path: path,
            fileSize: nil,
            storedAt: record.map { Date(timeIntervalSince1970: $0.storedAt) },
            maxAge: record?.maxAge,
            sequence: record?.sequence ?? 0,
            problem: nil
        )
        let data: Data?
        do {
            data = try contents(of: path)
        } catch {
            entry.problem = "unreadable (\(error))"
            entry.isLeftAsItIs = !JSONFileStorage.isForeign(error)
            return entry
        }
        guard let data else {
            entry.problem = "file missing"
            return entry
        }
        entry.fileSize = data.count
        let (json, isSealed): (Range<Int>, Bool)
        do {
            (json, isSealed) = try EntrySeal.unseal(data)
        } catch {
            entry.problem = "damaged entry file (\(error.reason))"
            return entry
        }
        let header: EntryHeader
        do {
            header = try JSONDecoder().decode(EntryHeader.self, from: data[json])
        } catch {
            // An intact file (its seal holds) whose fields do not decode with plain coders was written with the app's
            // own (a key strategy): no damage, and nothing the inspector can read further.
            if !isSealed { entry.problem = "not a decodable entry file (\(Self.summary(of: error)))" }
            return entry
        }
        if record == nil {
            let (total, overflow) = metadataSize.addingReportingOverflow(header.record.metadataSize(key: header.key))
            metadataSize = overflow ? .max : total
        }
        // As the store's rebuild judges it: a time that is not a finite number, or a date and an age whose sum is not.
        guard header.record.hasFiniteTimes else {
            entry.key = entry.key ?? header.key
            entry.problem = "damaged entry file (a time that is not a finite number)"
            return entry
        }
        if record == nil {
            entry.key = header.key
            entry.storedAt = Date(timeIntervalSince1970: header.storedAt)
            entry.maxAge = header.maxAge
            entry.sequence = header.sequence
        }
        if Self.relativePath(of: header.key) != path || (key != nil && key != header.key) {
            entry.problem = "holds the key \(StrataError.quoted(key: header.key)) of another file"
        }
        return entry
    }

    private static func summary(of error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "invalid JSON: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _): "no \"\(key.stringValue)\" field"
        case DecodingError.typeMismatch(_, let context): "wrong type at \(context.codingPath.map(\.stringValue))"
        case DecodingError.valueNotFound(_, let context): "null at \(context.codingPath.map(\.stringValue))"
        default: "\(error)"
        }
    }
}
