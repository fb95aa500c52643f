import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a ``JSONFileDataSource`` folder without opening the store, for tools such as `strata`: lists the
/// entries from the index and checks every entry file, changing nothing.
///
/// Opening a store may compact its index, rebuild it and move damaged files aside; an inspector only reads,
/// so a damaged file is reported where it is. A JSON-file store takes no lock: do not inspect a folder that
/// a live store is writing to.
///
/// ```swift
/// let report = try JSONFileStoreInspector(folder: usersFolder).report(verifying: true)
/// let damaged = report.entries.filter { $0.problem != nil }
/// ```
public struct JSONFileStoreInspector: Sendable {
    /// The store's folder.
    public let folderURL: URL

    private var root: String { folderURL.path }

    /// Prepares to read the store in `folder`.
    ///
    /// - Parameter folder: A store's folder (``JSONFileDataSource/Configuration/folder``).
    /// - Throws: ``Strata/StrataError/Code/notFound`` when the folder does not exist.
    public init(folder: URL) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw StrataError.notFound("No folder at \(folder.path)")
        }
        folderURL = folder.standardizedFileURL
    }

    /// Whether `folder` looks like a ``JSONFileDataSource`` folder: it holds `index.journal` or an
    /// `entries` folder.
    ///
    /// - Parameter folder: Any folder.
    public static func isStore(at folder: URL) -> Bool {
        var isFolder: ObjCBool = false
        let manager = FileManager.default
        return manager.fileExists(atPath: folder.appendingPathComponent("index.journal").path)
            || (manager.fileExists(atPath: folder.appendingPathComponent("entries").path, isDirectory: &isFolder)
                && isFolder.boolValue)
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
    /// - Throws: ``Strata/StrataError/Code/io`` when a folder cannot be listed.
    public func report(verifying: Bool, progress: (Int) -> Void = { _ in }) throws -> JSONFileStoreReport {
        let files = try entryFiles()
        let indexPath = root + "/index.journal"
        let indexData: Data?
        do {
            indexData = try POSIXFile.read(indexPath)
        } catch {
            throw StrataError.io("Reading the index \(indexPath) failed", underlying: error)
        }
        var indexProblem: String?
        var records: [String: IndexRecord]?
        if let indexData {
            do {
                records = try IndexJournal.replay(indexData).records
            } catch {
                indexProblem = "damaged index.journal (\(error))"
            }
        } else if !files.isEmpty {
            indexProblem = "missing index.journal"
        }
        guard let records else {
            // As the store rebuilds: every entry file is read.
            var entries: [JSONFileStoreEntry] = []
            for (position, path) in files.sorted().enumerated() {
                entries.append(check(path: path, key: nil, record: nil))
                progress(position + 1)
            }
            return JSONFileStoreReport(entries: entries, indexProblem: indexProblem, orphans: [])
        }
        var named: Set<String> = []
        var entries: [JSONFileStoreEntry] = []
        entries.reserveCapacity(records.count)
        for (position, key) in records.keys.sorted().enumerated() {
            let path = Self.relativePath(of: key)
            named.insert(path)
            guard let record = records[key] else { continue }
            entries.append(
                verifying ? check(path: path, key: key, record: record) : describe(path: path, key: key, record: record)
            )
            progress(position + 1)
        }
        let orphans = files.filter { !named.contains($0) }.sorted()
        return JSONFileStoreReport(entries: entries, indexProblem: indexProblem, orphans: orphans)
    }

    /// `entries/<ab>/<hash>.json` for `key`.
    private static func relativePath(of key: String) -> String {
        let hash = JSONFileStorage.fileName(of: key)
        return "entries/" + hash.prefix(2) + "/" + hash + ".json"
    }

    /// The entry files in the shard folders, as paths inside the store's folder.
    private func entryFiles() throws -> [String] {
        let entries = root + "/entries"
        do {
            var files: [String] = []
            for shard in try POSIXFile.names(in: entries) {
                for name in try POSIXFile.names(in: entries + "/" + shard)
                where name.hasSuffix(".json") && !name.hasPrefix(".") {
                    files.append("entries/" + shard + "/" + name)
                }
            }
            return files
        } catch {
            throw StrataError.io("Listing the entry folder \(entries) failed", underlying: error)
        }
    }

    /// An entry from its index record and its file's size.
    private func describe(path: String, key: String, record: IndexRecord) -> JSONFileStoreEntry {
        var info = stat()
        let exists = stat(root + "/" + path, &info) == 0
        return JSONFileStoreEntry(
            key: key,
            path: path,
            fileSize: exists ? Int(info.st_size) : nil,
            storedAt: Date(timeIntervalSince1970: record.storedAt),
            maxAge: record.maxAge,
            sequence: record.sequence,
            problem: exists ? nil : "file missing"
        )
    }

    /// An entry from its file, read and decoded; `key` and `record` are what the index says, if known.
    private func check(path: String, key: String?, record: IndexRecord?) -> JSONFileStoreEntry {
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
            data = try POSIXFile.read(root + "/" + path)
        } catch {
            entry.problem = "unreadable (\(error))"
            return entry
        }
        guard let data else {
            entry.problem = "file missing"
            return entry
        }
        entry.fileSize = data.count
        let header: EntryHeader
        do {
            header = try JSONDecoder().decode(EntryHeader.self, from: data)
        } catch {
            entry.problem = "not a decodable entry file (\(Self.summary(of: error)))"
            return entry
        }
        if record == nil {
            entry.key = header.key
            entry.storedAt = Date(timeIntervalSince1970: header.storedAt)
            entry.maxAge = header.maxAge
            entry.sequence = header.sequence
        }
        if Self.relativePath(of: header.key) != path || (key != nil && key != header.key) {
            entry.problem = "holds the key \"\(header.key.prefix(200))\" of another file"
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
