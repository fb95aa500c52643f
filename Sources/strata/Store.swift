import Foundation
import Strata
import StrataCache
import StrataFile
import StrataJSONFile
import StrataOffline
import StrataStorage

/// A store folder the tool works on: a file store, a JSON-file store, or an offline outbox (StrataOffline: a
/// JSON-file store of write records in its `records` subfolder), held through its inspector as the command's access
/// says (shared and creating nothing for `.readOnly`, exclusive for `.readWrite`) while the
/// tool runs.
enum Store {
    case file(FileStoreInspector)
    case json(JSONFileStoreInspector)
    /// An offline outbox: its records' JSON-file store, one entry per queued write, keyed by sequence number.
    case outbox(JSONFileStoreInspector)

    /// What the tool found in the folder.
    struct Contents {
        var rows: [EntryRow]
        var indexProblem: String?
        var orphans: [String]
    }

    /// Opens the store in `path` if, and only if, the folder carries a store's marker (`.strata-store`, written
    /// by the store); with `.readOnly` access nothing in the folder is created or changed.
    ///
    /// The marker is the only sign taken: an `entries` folder, hex-named files or a lock file do not make a
    /// store, and a link (as the folder or as the marker) is never followed.
    ///
    /// The marker is read before anything else is judged: a folder that is no store is refused as such (`notAStore`)
    /// whoever owns it, and an outbox given to a command that refuses outboxes (`unsupportedStore`) too; only then is
    /// a writing command refused a store another user owns (`wrongUser`).
    ///
    /// - Parameters:
    ///   - path: The folder the user gave.
    ///   - access: How the command holds the store.
    ///   - maximumMetadataSize: The most bytes of keys and metadata the inspector takes into memory.
    ///   - refusingOutbox: The error for an offline outbox, given the folder the user knows it by, when the command
    ///     does not act on one; it is thrown before the folder is held or its owner checked.
    /// - Throws: ``ToolError/failure(_:code:)`` for a missing folder, a link or a file in its place, a folder without
    ///   a marker of a known kind, or a store that another process holds.
    static func open(
        _ path: String,
        access: StoreAccess,
        maximumMetadataSize: Int = StoreLimits.defaultMaximumMetadataSize,
        refusingOutbox: ((URL) -> ToolError)? = nil
    ) throws -> Store {
        let url = URL(fileURLWithPath: path, isDirectory: true)
        let folder = try openFolder(path)
        // Only once the marker says what the folder is: a writing command on a folder another user owns that is no
        // store is refused as no store, not sent to that user.
        func checkOwner(outbox: URL? = nil) throws {
            if let outbox, let refusingOutbox { throw refusingOutbox(outbox) }
            if access == .readWrite { try refuseAnotherOwner(of: folder, at: path) }
        }
        // A store of its own kind: its owner checked, the tool's lock taken, then its inspector made.
        func inspect<Inspector>(_ make: (FolderIdentity, Int) throws -> Inspector) throws -> Inspector {
            try checkOwner()
            try FlockHold.take(in: folder, exclusive: access == .readWrite)
            return try wrap { try make(folder.identity, maximumMetadataSize) }
        }
        switch StoreMarker.read(in: folder) {
        case .marker(let contents) where contents.version > StoreMarker.currentVersion:
            throw ToolError.failure(
                "\(path) holds a Strata store of layout \(contents.version); this strata reads up to layout "
                    + "\(StoreMarker.currentVersion). Nothing was changed.",
                code: "unsupportedStore"
            )
        case .marker(let contents) where contents.kind == "file":
            return .file(
                try inspect {
                    try FileStoreInspector(folder: url, access: access, expecting: $0, maximumMetadataSize: $1)
                }
            )
        case .marker(let contents) where contents.kind == "json":
            if let outbox = outboxHolding(folder, at: url) {
                // An outbox's records folder (what inspect names as an outbox's path) is the outbox: its entries are
                // queued writes, which prune refuses to drop, whichever of the two folders the user gave.
                try checkOwner(outbox: outbox.url)
                return .outbox(
                    try openOutboxRecords(
                        in: outbox.folder,
                        url: outbox.url,
                        access: access,
                        maximumMetadataSize: maximumMetadataSize
                    )
                )
            }
            return .json(
                try inspect {
                    try JSONFileStoreInspector(folder: url, access: access, expecting: $0, maximumMetadataSize: $1)
                }
            )
        case .marker(let contents) where contents.kind == "outbox":
            try checkOwner(outbox: url.standardizedFileURL)
            return .outbox(
                try openOutboxRecords(in: folder, url: url, access: access, maximumMetadataSize: maximumMetadataSize)
            )
        case .marker(let contents):
            throw ToolError.failure(
                "\(path) holds a Strata store of kind \"\(contents.kind)\", which this strata does not know. "
                    + "Nothing was changed.",
                code: "unsupportedStore"
            )
        case .missing:
            if let checkout = StoreRole.describeUnmarked(path) { throw ToolError.failure(checkout, code: "notAStore") }
            throw ToolError.failure(
                "\(path) is not a Strata store: it has no \(StoreMarker.fileName) marker (a store writes one in "
                    + "its folder; the tool acts on nothing else). Nothing was changed.",
                code: "notAStore"
            )
        case .unrecognised(let reason):
            throw ToolError.failure("\(path) is not a Strata store: \(reason). Nothing was changed.", code: "notAStore")
        case .unreadable(let error):
            throw ToolError.failure("cannot read the marker of \(path): \(error). Nothing was changed.", code: "io")
        }
    }

    /// The records store of an outbox folder (its `records` subfolder, never followed through a link), held as
    /// `access` says.
    private static func openOutboxRecords(
        in folder: StoreFolder,
        url: URL,
        access: StoreAccess,
        maximumMetadataSize: Int
    ) throws -> JSONFileStoreInspector {
        let name = "records"
        let records: StoreFolder?
        do {
            records = try folder.subfolder(name, create: false)
        } catch {
            throw ToolError.failure(
                "\(url.path)/\(name) is not the outbox's records folder: \(error)",
                code: "notAStore"
            )
        }
        guard let records else {
            throw ToolError.failure(
                "the outbox \(url.path) has no records yet. Nothing was changed.",
                code: "notAStore"
            )
        }
        try FlockHold.take(in: records, exclusive: access == .readWrite)
        let recordsURL = url.appendingPathComponent(name, isDirectory: true)
        return try wrap {
            try JSONFileStoreInspector(
                folder: recordsURL,
                access: access,
                expecting: records.identity,
                maximumMetadataSize: maximumMetadataSize
            )
        }
    }

    /// The outbox whose records folder `folder` is, if it is one: `folder`'s parent (reached by `..` from its path,
    /// opened without following a link) carries an outbox's marker and its `records` subfolder (not followed
    /// through a link) is `folder` itself.
    ///
    /// - Parameters:
    ///   - folder: A JSON-file store's folder, opened at `url`.
    ///   - url: The path the user gave.
    private static func outboxHolding(_ folder: StoreFolder, at url: URL) -> (folder: StoreFolder, url: URL)? {
        let name = "records"
        let parentPath = url.appendingPathComponent("..", isDirectory: true).path
        guard let parent = try? StoreFolder.open(parentPath, create: false),
            case .marker(let contents) = StoreMarker.read(in: parent), contents.kind == "outbox",
            let records = try? parent.subfolder(name, create: false), records.identity == folder.identity
        else { return nil }
        return (parent, url.standardizedFileURL.deletingLastPathComponent())
    }

    /// Refuses to change a store another user owns (`sudo strata clear …` on an app's store): a file the tool writes
    /// there (a JSON-file store's index, an outbox's session) would be the tool's user's, readable but not writable
    /// by the store's owner, who could then no longer open its store.
    ///
    /// - Throws: ``ToolError/failure(_:code:)`` with the code `wrongUser`.
    private static func refuseAnotherOwner(of folder: StoreFolder, at path: String) throws {
        var info = stat()
        guard fstat(folder.descriptor, &info) == 0 else { return }
        let user = geteuid()
        guard info.st_uid != user else { return }
        throw ToolError.failure(
            "\(path) belongs to the user \(info.st_uid), and strata runs as \(user): the files it would write there "
                + "would be \(user)'s, and the store's owner could no longer open its store. Run it as the store's owner "
                + "(sudo -u '#\(info.st_uid)' strata …). Nothing was changed.",
            code: "wrongUser"
        )
    }

    /// The folder at `path`, opened without following a link and without changing anything.
    ///
    /// Trailing `/` and `/.` components are taken off first: the system follows a link named by `link/` or
    /// `link/.` whatever `O_NOFOLLOW` says, since their last component is not the link.
    private static func openFolder(_ path: String) throws -> StoreFolder {
        // `Options` refuses an empty folder; one that reaches here names no folder.
        guard !path.isEmpty else { throw ToolError.usage("a store folder is needed, not an empty argument") }
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") || trimmed.hasSuffix("/.") {
            trimmed = trimmed.hasSuffix("/") ? trimmed.dropLast() : trimmed.dropLast(2)
        }
        if trimmed.isEmpty { trimmed = "/" }
        do {
            return try StoreFolder.open(String(trimmed), create: false)
        } catch {
            if error.isNotFound { throw ToolError.failure("no such folder: \(path)", code: "noSuchFolder") }
            // O_NOFOLLOW | O_DIRECTORY on a link fails with ELOOP or ENOTDIR, depending on the system.
            if error.isLink || (try? FileManager.default.destinationOfSymbolicLink(atPath: String(trimmed))) != nil {
                throw ToolError.failure(
                    "\(path) is a symbolic link, which the tool never follows; give the folder it names",
                    code: "link"
                )
            }
            if error.isWrongKind { throw ToolError.failure("not a folder: \(path)", code: "notAFolder") }
            throw ToolError.failure("cannot open \(path): \(error)", code: "io")
        }
    }

    /// Runs `body`, turning a ``Strata/StrataError`` into a failure with its message.
    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StrataError where error.code == .alreadyInUse {
            throw ToolError.failure(
                "the store is in use by another process; close it first (\(error.message))",
                code: "inUse"
            )
        } catch let error as StrataError where error.code == .tooLarge {
            throw ToolError.failure(
                "\(error.message). If the app that owns the store raised its maximumMetadataSize, give the tool the "
                    + "same in \(Options.metadataLimitVariable)",
                code: error.code.description
            )
        } catch let error as StrataError {
            throw ToolError.failure(error.message, code: error.code.description)
        }
    }

    /// `file`, `json` or `outbox`.
    var kind: String {
        switch self {
        case .file: "file"
        case .json: "json"
        case .outbox: "outbox"
        }
    }

    /// What wrote the store, when a StrataCache composition did: told from the folder's siblings, or for a
    /// BlobCache's persistent layer from its blobs, each of which carries its freshness record in its attributes.
    ///
    /// The entries are read one at a time, none kept (a listing the command made is alive meanwhile), and the look
    /// stops at the first that is no blob.
    var role: StoreRole? {
        guard case .file(let inspector) = self else { return nil }
        if let role = StoreRole.of(fileStore: url) { return role }
        var count = 0
        var blobs = true
        inspector.forEachEntry { entry in
            count += 1
            blobs = entry.info?.attributes.flatMap(FreshnessRecord.decode) != nil
            return blobs
        }
        return count > 0 && blobs ? .blobCache : nil
    }

    /// The store's folder.
    var url: URL {
        switch self {
        case .file(let inspector): inspector.folderURL
        case .json(let inspector), .outbox(let inspector): inspector.folderURL
        }
    }

    /// Throws a usage error when `maxAge` is given for a store that does not take it: only a JSON-file store has a
    /// default maximum age the folder does not record; a file store's entries carry their own expiry, and an outbox's
    /// queued writes never expire.
    ///
    /// - Parameter maxAge: The `--max-age` option, if given.
    /// - Throws: ``ToolError/usage(_:)``, before anything was changed.
    func checkMaxAge(_ maxAge: Double?) throws {
        guard maxAge != nil else { return }
        let reason: String
        switch self {
        case .json: return
        case .file: reason = "a file store, whose entries carry their own expiry"
        case .outbox: reason = "an offline outbox, whose queued writes never expire"
        }
        throw ToolError.usage(
            "--max-age applies only to a JSON-file store (the default maximum age of its entries); "
                + "\(displayURL.path) is \(reason). Nothing was changed."
        )
    }

    /// The folder the user knows the store by: an outbox's own folder (the parent of its records store, ``url``),
    /// or the store's folder.
    var displayURL: URL {
        if case .outbox = self { return url.deletingLastPathComponent() }
        return url
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
            let entries = try Self.wrap {
                verifying
                    ? try inspector.verifyEntries(progress: progress.tick)
                    : try inspector.listEntries(progress: progress.tick)
            }
            progress.finish()
            return Contents(rows: entries.map(Self.row), indexProblem: nil, orphans: [])
        case .json(let inspector), .outbox(let inspector):
            let report = try Self.wrap { try inspector.report(verifying: verifying, progress: progress.tick) }
            progress.finish()
            var rows = report.entries.map { Self.row($0, defaultMaxAge: defaultMaxAge) }
            if case .outbox = self { rows = rows.map { Self.withWrite($0, from: inspector) } }
            return Contents(rows: rows, indexProblem: report.indexProblem, orphans: report.orphans)
        }
    }

    /// An outbox's row with the write its record holds, judged as the outbox judges it when it opens: a record that
    /// does not read as a write, or is numbered otherwise than its file (its store key), is unreadable — the outbox
    /// leaves it where it is and never replays it — and one with a defect (``PendingWrite/defect``) is set aside.
    ///
    /// An unreadable record is the row's problem, no damage: no repair touches it (it reads as a JSON-file store's
    /// entry), as the outbox leaves it.
    private static func withWrite(_ row: EntryRow, from inspector: JSONFileStoreInspector) -> EntryRow {
        guard row.problem == nil, let key = row.key else { return row }
        var row = row
        let write: PendingWrite?
        do {
            write = try inspector.value(forKey: key, as: PendingWrite.self)
        } catch {
            row.problem = "not an outbox record (\((error as? StrataError)?.message ?? "\(error)"))"
            return row
        }
        guard var write else {
            row.problem = "file missing"
            row.isDamaged = true
            return row
        }
        guard write.sequence == PendingWrite.sequence(ofStoreKey: key) else {
            row.problem = "not an outbox record (a record numbered \(write.sequence) in the file of \(key))"
            return row
        }
        if let defect = write.defect, !write.isSetAside {
            write.isSetAside = true
            write.lastError = "Set aside when the outbox opens: \(defect)"
        }
        // No command shows a write's payload: dropped here, a walk over a large outbox holds one at a time.
        write.value = nil
        row.write = write
        return row
    }

    private static func row(_ entry: FileStoreEntry) -> EntryRow {
        EntryRow(
            key: entry.info?.key,
            file: entry.fileName,
            size: entry.info?.size ?? entry.fileSize,
            created: entry.info?.created,
            expiresAt: entry.info.flatMap(Self.expiry),
            lastAccess: entry.info?.lastAccess,
            eTag: entry.info?.eTag,
            lastModified: entry.info?.lastModified,
            recency: entry.accessSequence,
            problem: entry.problem,
            isDamaged: entry.isDamaged
        )
    }

    /// When a file store's entry expires: its own expiry, or for a BlobCache's blob the freshness stored with
    /// it (its attributes, renewed in place by a `304` or a lifetime extension).
    private static func expiry(_ info: FileEntryInfo) -> Date? {
        info.expiresAt ?? info.attributes.flatMap(FreshnessRecord.decode)?.freshUntil
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
            problem: entry.problem,
            isDamaged: entry.isDamaged,
            reported: entry
        )
    }

    /// What ``remove(_:whileReleased:)`` did: the rows removed, and those it could not remove with why.
    struct Removal {
        /// The rows removed.
        var removed: [EntryRow] = []
        /// The rows whose removal failed, each with its error; their entries stay.
        var failed: [(row: EntryRow, error: ToolError)] = []
    }

    /// Removes the entries of `rows` that are still as listed, each on its own: one that cannot be removed (a file
    /// the system refuses to unlink) is reported in ``Removal/failed`` and the others are still removed.
    ///
    /// A file store's inspector has held the store alone since it listed the rows, so each is still as listed: its
    /// files are removed by name (a file that does not prove itself the store's is set aside). A JSON-file store's
    /// inspector gives the folder up to the data source that removes the keys, and an app may open the store in
    /// between: a key is removed only while its entry is still the one reported (``EntryRow/reported``), so an
    /// entry the app wrote, read or renewed meanwhile stays (in neither list).
    ///
    /// - Parameters:
    ///   - rows: Rows this store listed.
    ///   - whileReleased: Runs while a JSON-file store's folder is held by no one, between the inspector's close
    ///     and the data source's open: where another process may use the store.
    /// - Throws: When the store cannot be opened for the removal; then nothing was removed.
    func remove(_ rows: [EntryRow], whileReleased: () throws -> Void = {}) throws -> Removal {
        let removeOne: (EntryRow) throws -> Bool
        switch self {
        case .file(let inspector):
            removeOne = { row in
                _ = try inspector.remove(fileNames: [row.file])
                return true
            }
        case .json(let inspector), .outbox(let inspector):
            let source = try self.source(replacing: inspector, whileReleased: whileReleased)
            removeOne = { row in
                guard let key = row.key, let reported = row.reported else { return false }
                return try source.removeValue(forKey: key, ifStill: reported)
            }
        }
        var removal = Removal()
        for row in rows {
            do {
                if try Self.wrap({ try removeOne(row) }) { removal.removed.append(row) }
            } catch let error as ToolError {
                removal.failed.append((row, error))
            }
        }
        return removal
    }

    /// Removes every entry; other files stay. Returns how many entries were removed.
    func removeAll() throws -> Int {
        switch self {
        case .file(let inspector):
            return try Self.wrap { try inspector.removeAllEntries() }
        case .json(let inspector), .outbox(let inspector):
            let source = try self.source(replacing: inspector)
            let count = source.count
            try Self.wrap { try source.removeAll() }
            return count
        }
    }

    /// Repairs what verification found: removes damaged entry files of a file store; in a JSON-file store,
    /// opens the store (which rebuilds a damaged index) and reads each damaged entry, which moves its file
    /// aside as `<name>.corrupt-<date>`. Rows whose problem is no damage (``EntryRow/isDamaged``: a file this user
    /// cannot read, one a later Strata wrote) are left as they are, as the store leaves them.
    ///
    /// A JSON-file store's inspector is closed for this; open the store again to read it after.
    func repair(_ rows: [EntryRow]) throws {
        let damaged = rows.filter { $0.problem != nil && $0.isDamaged }
        switch self {
        case .file(let inspector):
            _ = try Self.wrap { try inspector.remove(fileNames: damaged.map(\.file)) }
        case .json(let inspector), .outbox(let inspector):
            let source = try self.source(replacing: inspector)
            for key in damaged.compactMap(\.key) { _ = try? source.value(forKey: key) }
        }
    }

    /// The data source of a JSON-file store (durable for an outbox's records), which changes it as the store itself
    /// does: the inspector gives the folder up first (a store holds its folder alone), and the store opens it only if
    /// the folder at its path is still the one inspected.
    ///
    /// - Parameter whileReleased: Runs once the inspector has given the folder up, before the store opens it.
    private func source(
        replacing inspector: JSONFileStoreInspector,
        whileReleased: () throws -> Void = {}
    ) throws -> JSONFileDataSource<JSONValue> {
        inspector.close()
        try whileReleased()
        var configuration = JSONFileDataSource<JSONValue>.Configuration(folder: inspector.folderURL)
        configuration.expectedFolder = inspector.folderIdentity
        configuration.maximumMetadataSize = inspector.maximumMetadataSize
        // An outbox keeps its records durably by default (the folder does not say whether an app chose less): its
        // records are changed as durably, each removal flushed before the tool reports it.
        if case .outbox = self { configuration.durability = .durable }
        return try Self.wrap { try JSONFileDataSource<JSONValue>(configuration: configuration) }
    }
}
