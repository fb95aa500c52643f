import Foundation
import Strata
import StrataFile
import StrataJSONFile

/// A store folder the tool works on: a file store (held under its lock while the tool runs) or a
/// JSON-file store.
enum Store {
    case file(FileStoreInspector)
    case json(JSONFileStoreInspector)

    /// What the tool found in the folder.
    struct Contents {
        var rows: [EntryRow]
        var indexProblem: String?
        var orphans: [String]
    }

    /// Detects the kind of store in `path` and opens it.
    ///
    /// - Throws: ``ToolError/failure(_:)`` for a missing folder, a folder that is no store, or a file store
    ///   that another process holds.
    static func open(_ path: String) throws -> Store {
        let url = URL(fileURLWithPath: path, isDirectory: true)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw ToolError.failure("no such folder: \(path)")
        }
        guard isFolder.boolValue else { throw ToolError.failure("not a folder: \(path)") }
        if JSONFileStoreInspector.isStore(at: url) {
            return .json(try wrap { try JSONFileStoreInspector(folder: url, access: .readOnly) })
        }
        if FileStoreInspector.isStore(at: url) {
            return .file(try wrap { try FileStoreInspector(folder: url) })
        }
        throw ToolError.failure(
            "\(path) is neither a file store (.strata entries, .strata-lock) nor a JSON-file store "
                + "(index.journal, entries/)"
        )
    }

    /// Runs `body`, turning a ``Strata/StrataError`` into a failure with its message.
    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StrataError where error.code == .alreadyInUse {
            throw ToolError.failure("the store is in use by another process; close it first (\(error.message))")
        } catch let error as StrataError {
            throw ToolError.failure(error.message)
        }
    }

    /// `file` or `json`.
    var kind: String {
        switch self {
        case .file: "file"
        case .json: "json"
        }
    }

    /// The store's folder.
    var url: URL {
        switch self {
        case .file(let inspector): inspector.folderURL
        case .json(let inspector): inspector.folderURL
        }
    }

    /// Lists the entries (metadata only) or, `verifying`, reads and checks every one.
    ///
    /// - Parameters:
    ///   - verifying: Whether to read every entry in full.
    ///   - defaultMaxAge: A JSON-file store's default maximum age in seconds.
    ///   - progress: Hears the number of entries done.
    func contents(verifying: Bool, defaultMaxAge: Double?, progress: Progress) throws -> Contents {
        switch self {
        case .file(let inspector):
            let entries =
                verifying ? inspector.verify(progress: progress.tick) : inspector.entries(progress: progress.tick)
            progress.finish()
            return Contents(rows: entries.map(Self.row), indexProblem: nil, orphans: [])
        case .json(let inspector):
            let report = try Self.wrap { try inspector.report(verifying: verifying, progress: progress.tick) }
            progress.finish()
            return Contents(
                rows: report.entries.map { Self.row($0, defaultMaxAge: defaultMaxAge) },
                indexProblem: report.indexProblem,
                orphans: report.orphans
            )
        }
    }

    private static func row(_ entry: FileStoreEntry) -> EntryRow {
        EntryRow(
            key: entry.info?.key,
            file: entry.fileName,
            size: entry.info?.size ?? entry.fileSize,
            created: entry.info?.created,
            expiresAt: entry.info?.expiresAt,
            lastAccess: entry.info?.lastAccess,
            eTag: entry.info?.eTag,
            lastModified: entry.info?.lastModified,
            recency: entry.accessSequence,
            problem: entry.problem
        )
    }

    private static func row(_ entry: JSONFileStoreEntry, defaultMaxAge: Double?) -> EntryRow {
        EntryRow(
            key: entry.key,
            file: entry.path,
            size: entry.fileSize ?? 0,
            created: entry.storedAt,
            expiresAt: entry.expiresAt(defaultMaxAge: defaultMaxAge),
            lastAccess: nil,
            eTag: nil,
            lastModified: nil,
            recency: entry.sequence,
            problem: entry.problem
        )
    }

    /// Removes the entries of `rows`: files by name in a file store, keys through the data source in a
    /// JSON-file store. Returns how many were removed.
    func remove(_ rows: [EntryRow]) throws -> Int {
        switch self {
        case .file(let inspector):
            return try Self.wrap { try inspector.remove(fileNames: rows.map(\.file)) }
        case .json(let inspector):
            inspector.close()
            let source = try Self.wrap { try JSONFileDataSource<JSONValue>(folder: inspector.folderURL) }
            var removed = 0
            for key in rows.compactMap(\.key) where try Self.wrap({ try source.removeValue(forKey: key) }) {
                removed += 1
            }
            return removed
        }
    }

    /// Removes every entry; other files stay. Returns how many entries were removed.
    func removeAll() throws -> Int {
        switch self {
        case .file(let inspector):
            return try Self.wrap { try inspector.removeAllEntries() }
        case .json(let inspector):
            inspector.close()
            let source = try Self.wrap { try JSONFileDataSource<JSONValue>(folder: inspector.folderURL) }
            let count = source.count
            try Self.wrap { try source.removeAll() }
            return count
        }
    }

    /// Repairs what verification found: removes damaged entry files of a file store; in a JSON-file store,
    /// opens the store (which rebuilds a damaged index) and reads each damaged entry, which moves its file
    /// aside as `<name>.corrupt-<date>`.
    func repair(_ damaged: [EntryRow]) throws {
        switch self {
        case .file(let inspector):
            _ = try Self.wrap { try inspector.remove(fileNames: damaged.map(\.file)) }
        case .json(let inspector):
            inspector.close()
            let source = try Self.wrap { try JSONFileDataSource<JSONValue>(folder: inspector.folderURL) }
            for key in damaged.compactMap(\.key) { _ = try? source.value(forKey: key) }
        }
    }
}
