import Foundation
import Strata
import StrataStorage
internal import StrataSupport

/// Access to a ``FileDataSource`` folder without opening the store: lists, verifies and removes entry
/// files, for tools such as `strata`.
///
/// An inspector acts only on a folder that carries a file store's marker (`.strata-store`, which every store
/// writes when it opens), and holds the folder as its ``Strata/StoreAccess`` says for as long as it lives:
///
/// - ``Strata/StoreAccess/readOnly``: a shared claim (a live store, in this process or another, makes it fail
///   with ``Strata/StrataError/Code/alreadyInUse``); it creates, renames, repairs and removes nothing — not
///   even a lock file — so it works on read-only media, and damaged items are reported, never removed.
/// - ``Strata/StoreAccess/readWrite``: the store's exclusive claim, so no store can open the folder meanwhile;
///   ``remove(fileNames:)`` and ``removeAllEntries()`` may remove entry files.
///
/// Listing and verifying change nothing in either mode. Only items at entry names (32 hex digits and
/// `.strata`) are ever removed — a file only when its sealed trailer proves the store wrote it, a link itself,
/// never its target; any other file or a folder at such a name is set aside by a rename, never deleted — and
/// other files in the folder stay. No call follows a symbolic link.
///
/// ```swift
/// let inspector = try FileStoreInspector(folder: imagesFolder, access: .readOnly)
/// let damaged = try inspector.verifyEntries().filter { $0.problem != nil }
/// ```
public final class FileStoreInspector: Sendable, StoreInspecting {
    /// The store's folder.
    public let folderURL: URL

    /// How the inspector holds the folder.
    public var access: StoreAccess { inspection.access }

    /// The most bytes of keys and metadata ``listEntries(progress:)`` and ``verifyEntries(progress:)`` take into
    /// memory, counted as the store counts them (``FileDataSource/Configuration/maximumMetadataSize``).
    public var maximumMetadataSize: Int { inspection.maximumMetadataSize }

    private let inspection: StoreInspection
    private var folder: StoreFolder { inspection.folder }

    /// Opens the store in `folder` and claims it as `access` says.
    ///
    /// - Parameters:
    ///   - folder: A store's folder (``FileDataSource/folderURL``); a symbolic link in its place is refused.
    ///   - access: ``Strata/StoreAccess/readOnly`` to look without changing anything (read-only media work),
    ///     ``Strata/StoreAccess/readWrite`` to be able to remove entries.
    ///   - maximumMetadataSize: The most bytes of keys and metadata a listing takes into memory: the store's
    ///     ``FileDataSource/Configuration/maximumMetadataSize``; `nil` for its default (256 MiB).
    /// - Throws: ``Strata/StrataError/Code/notFound`` when the folder does not exist,
    ///   ``Strata/StrataError/Code/invalidArgument`` when it is not a file store (no `.strata-store` marker of
    ///   kind `file`, or a link in the folder's place), ``Strata/StrataError/Code/alreadyInUse`` when a live
    ///   store or inspector holds it, ``Strata/StrataError/Code/io`` when it cannot be opened.
    public convenience init(folder: URL, access: StoreAccess = .readWrite, maximumMetadataSize: Int? = nil) throws {
        try self.init(folder: folder, access: access, expecting: nil, maximumMetadataSize: maximumMetadataSize)
    }

    /// The inspector of a folder opened and claimed for it.
    package init(_ inspection: StoreInspection) {
        self.inspection = inspection
        folderURL = inspection.url.resolvingSymlinksInPath().standardizedFileURL
    }

    /// A file store's marker kind: `file`.
    package static var markerKind: String { FileDataSource.markerKind }

    /// "file store", in messages.
    package static var kindName: String { "file store" }

    /// The path the user gave: a link in the folder's place is refused, not followed.
    package static func storePath(of folder: URL) -> String { folder.path }

    deinit {
        inspection.ownership.release()
    }

    /// Whether `folder` is a ``FileDataSource`` folder: it carries a file store's marker (`.strata-store`,
    /// kind `file`). Nothing else counts — not entry-like names, not a lock file — and no link is followed.
    ///
    /// - Parameter folder: Any folder.
    public static func isStore(at folder: URL) -> Bool {
        StoreFolder.isStore(at: folder.path, kind: FileDataSource.markerKind)
    }

    /// The items at entry names in the folder (files, links, folders), in ascending name order; none when the
    /// folder cannot be listed.
    private func entryItems() -> [(name: String, kind: ItemKind)] {
        (try? listedEntryItems()) ?? []
    }

    /// ``entryItems()``, or the error of a listing that failed or was cut short.
    private func listedEntryItems() throws(StrataError) -> [(name: String, kind: ItemKind)] {
        // Walked name by name: only the entries' names are kept, however many others the folder holds.
        var items: [(name: String, kind: ItemKind)] = []
        do {
            try folder.forEachItem { name, kind in
                if EntryName(fileName: name) != nil { items.append((name, kind)) }
            }
        } catch {
            throw error.strataError("Listing the store folder")
        }
        return items.sorted { $0.name < $1.name }
    }

    /// Reads the metadata of every entry file (one `openat`, `fstat` and `pread` each) and the access journal,
    /// without reading the entries' data; damaged files, and links or folders at entry names, come with a
    /// ``FileStoreEntry/problem``.
    ///
    /// Every entry's key and metadata are kept, whatever they take: on a folder whose files you did not write, use
    /// ``listEntries(progress:)``, which stops at ``maximumMetadataSize``.
    ///
    /// - Parameter progress: Called after each file with the number of files read so far.
    /// - Returns: The entries, in file-name order.
    public func entries(progress: (Int) -> Void = { _ in }) -> [FileStoreEntry] {
        (try? describeEntries(limit: .max, progress: progress)) ?? []
    }

    /// Reads the metadata of every entry file as ``entries(progress:)`` does, taking no more keys and metadata into
    /// memory than ``maximumMetadataSize``, as the store's open does.
    ///
    /// - Parameter progress: Called after each file with the number of files read so far.
    /// - Returns: The entries, in file-name order.
    /// - Throws: ``Strata/StrataError/Code/tooLarge`` as soon as the entries read take more than
    ///   ``maximumMetadataSize`` bytes of keys and metadata (files planted under long keys, or a store whose app
    ///   raised its limit: give the inspector the app's).
    public func listEntries(progress: (Int) -> Void = { _ in }) throws -> [FileStoreEntry] {
        try describeEntries(limit: maximumMetadataSize, progress: progress)
    }

    /// Calls `body` with each entry as ``entries(progress:)`` reads it, keeping none: what takes one look at every
    /// entry holds one at a time. `body` returns `false` to stop.
    package func forEachEntry(_ body: (FileStoreEntry) -> Bool) {
        let journal = (try? FileDataSource.readJournal(folder, diagnostics: nil, discarding: false)) ?? [:]
        for item in entryItems() where !body(describe(item, journal: journal).entry) { return }
    }

    /// The entries, their keys and metadata at most `limit` bytes as the store counts them.
    private func describeEntries(limit: Int, progress: (Int) -> Void) throws(StrataError) -> [FileStoreEntry] {
        let journal = (try? FileDataSource.readJournal(folder, diagnostics: nil, discarding: false)) ?? [:]
        var budget = MetadataBudget(limit: limit)
        var result: [FileStoreEntry] = []
        for (position, item) in entryItems().enumerated() {
            let (entry, metadataSize) = describe(item, journal: journal)
            try budget.take(metadataSize, at: item.name, in: folder, outcome: "nothing more was read")
            result.append(entry)
            progress(position + 1)
        }
        return result
    }

    /// Reads every entry file in full and checks its metadata, that it holds the key its name stands for,
    /// and its data against the content hash; changes nothing.
    ///
    /// Every entry's key and metadata are kept, whatever they take: on a folder whose files you did not write, use
    /// ``verifyEntries(progress:)``, which stops at ``maximumMetadataSize``.
    ///
    /// - Parameter progress: Called after each file with the number of files checked so far.
    /// - Returns: Every entry, in file-name order; damaged ones with a ``FileStoreEntry/problem``. One this process
    ///   cannot read, or one a later Strata wrote, has a problem too, but ``FileStoreEntry/isDamaged`` is `false`:
    ///   the store leaves it as it is, and so should a repair.
    public func verify(progress: (Int) -> Void = { _ in }) -> [FileStoreEntry] {
        check(entries(), progress: progress)
    }

    /// Reads and checks every entry file as ``verify(progress:)`` does, taking no more keys and metadata into memory
    /// than ``maximumMetadataSize``, as the store's open does.
    ///
    /// - Parameter progress: Called after each file with the number of files checked so far.
    /// - Returns: Every entry, in file-name order, as ``verify(progress:)`` returns them.
    /// - Throws: ``Strata/StrataError/Code/tooLarge`` as ``listEntries(progress:)`` does, before any data is read.
    public func verifyEntries(progress: (Int) -> Void = { _ in }) throws -> [FileStoreEntry] {
        check(try listEntries(), progress: progress)
    }

    /// `entries` with each sound one's data checked against its content hash.
    private func check(_ entries: [FileStoreEntry], progress: (Int) -> Void) -> [FileStoreEntry] {
        var result = entries
        for position in result.indices {
            if result[position].problem == nil, let problem = checkContent(of: result[position]) {
                result[position].problem = problem.description
                result[position].isDamaged = problem.isDamage
            }
            progress(position + 1)
        }
        return result
    }

    /// Clears entry files by name, deleting only what proves the store wrote it: a file whose trailer is sealed
    /// (magic, length, checksum) is removed, a link at such a name is removed itself, and a file without a sealed
    /// trailer (a user's file at an entry's name, or one cut short) or a folder is set aside by a rename
    /// (`<name>.damaged-<hex>`), never deleted. Names that are not entry file names are ignored, and missing
    /// files count as removed. An entry a later version of Strata wrote, in a layout this one does not know, is left
    /// as it is (not counted): it is that version's, whole.
    ///
    /// - Parameter fileNames: ``FileStoreEntry/fileName`` values.
    /// - Returns: How many items were removed or set aside.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for a ``Strata/StoreAccess/readOnly`` inspector
    ///   (nothing is removed), ``Strata/StrataError/Code/io`` when a file cannot be removed (the others still
    ///   are).
    @discardableResult
    public func remove(fileNames: [String]) throws -> Int {
        try checkWritable()
        var removed = 0
        var failure: StrataError?
        for fileName in fileNames where EntryName(fileName: fileName) != nil {
            // A later Strata's entry (a layout this one does not know) is no damage: it stays for that version.
            if case .failure(.newer) = EntryFile.readTrailer(in: folder, fileName: fileName) { continue }
            do {
                _ = try EntryFile.dispose(fileName, in: folder)
                removed += 1
            } catch {
                failure = failure ?? error.strataError("Removing an entry")
            }
        }
        if let failure { throw failure }
        return removed
    }

    /// Removes every entry file (damaged ones included), the access journal and the store's own leftovers:
    /// temporary files of interrupted writes, and entry files or journals set aside as damaged (links, and files
    /// whose trailer proves the store wrote them; a folder, a pipe, a socket or a file without that proof set aside
    /// stays). A file at an entry's name without a sealed trailer is set aside as ``remove(fileNames:)`` does, never
    /// deleted. The marker, the lock file and every other file stay.
    ///
    /// - Returns: How many entry files were removed or set aside.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for a ``Strata/StoreAccess/readOnly`` inspector,
    ///   ``Strata/StrataError/Code/io`` when the folder cannot be listed or a file cannot be removed.
    @discardableResult
    public func removeAllEntries() throws -> Int {
        try checkWritable()
        let removed = try remove(fileNames: listedEntryItems().map(\.name))
        _ = EntryFile.discard(AccessJournal.fileName, in: folder)
        // What the store set aside goes only when it is a link (itself) or a sealed file: a folder, a pipe or a
        // socket set aside is never deleted.
        try? folder.forEachItem { name, kind in
            guard
                FileDataSource.isLeftoverTemporary((name, kind))
                    || (EntryFile.isSetAside(name)
                        && (kind == .link || (kind == .file && EntryFile.isSealed(name, in: folder))))
            else { return }
            _ = try? folder.remove(name)
        }
        return removed
    }

    private func checkWritable() throws {
        guard access == .readWrite else {
            throw StrataError(
                .invalidArgument,
                "The inspector of \(folder.path) was opened read-only; it removes nothing"
            )
        }
    }

    /// The entry at `item`, and the bytes of key and metadata it holds in memory as the store counts them (0 for one
    /// whose trailer did not read).
    private func describe(
        _ item: (name: String, kind: ItemKind),
        journal: [EntryName: AccessJournal.Record]
    ) -> (entry: FileStoreEntry, metadataSize: Int) {
        let fileName = item.name
        func damaged(_ problem: String, isDamage: Bool = true) -> (entry: FileStoreEntry, metadataSize: Int) {
            let size =
                item.kind == .file ? (try? folder.status(of: fileName)).flatMap { $0.map { Int($0.st_size) } } : nil
            let entry = FileStoreEntry(
                fileName: fileName,
                fileSize: size ?? 0,
                info: nil,
                accessSequence: 0,
                problem: problem,
                isDamaged: isDamage
            )
            return (entry, 0)
        }
        guard let name = EntryName(fileName: fileName) else { return damaged("not an entry") }
        switch item.kind {
        case .link: return damaged(EntryFileProblem.link.description)
        case .folder, .other: return damaged(EntryFileProblem.notAFile.description)
        case .file: break
        }
        let trailer: EntryTrailer
        let length: Int
        switch EntryFile.readTrailer(in: folder, fileName: fileName) {
        case .success(let found): (trailer, length) = (found.trailer, found.length)
        case .failure(.damaged): return damaged("unreadable metadata (truncated or damaged)")
        case .failure(let problem): return damaged(problem.description, isDamage: problem.isDamage)
        }
        var lastAccess = trailer.created
        var sequence = trailer.writeSequence
        if let record = journal[name], record.accessSequence > trailer.writeSequence {
            lastAccess = record.lastAccess
            sequence = record.accessSequence
        }
        let info = FileEntryInfo(trailer, lastAccess: lastAccess)
        let problem =
            EntryName(key: trailer.key) == name || EntryName(rawKey: trailer.key) == name
            ? nil : "holds a key that belongs to another file"
        let entry = FileStoreEntry(
            fileName: fileName,
            fileSize: length,
            info: info,
            accessSequence: sequence,
            problem: problem
        )
        return (entry, MetadataBudget.size(of: trailer, fileLength: length))
    }

    /// Hashes an entry's data and compares it with its content hash; the problem, or `nil`.
    ///
    /// A read that fails (an I/O error, a permission a network volume withdrew) proves nothing about the data: the
    /// entry is not checked, and no damage (`not checked: …`), as the store leaves an entry it cannot read. Only a
    /// file that ends before its data does, or data that does not match, is damage.
    private func checkContent(of entry: FileStoreEntry) -> (description: String, isDamage: Bool)? {
        guard let info = entry.info else { return nil }
        let descriptor: Int32
        do {
            descriptor = try folder.openFile(entry.fileName, EntryFile.readFlags)
        } catch {
            let problem = EntryFileProblem(opening: error)
            return (problem.description, problem.isDamage)
        }
        defer { _ = close(descriptor) }
        var hasher = ContentChecksum()
        switch FileDataSource.streamFile(descriptor, size: info.size, into: &hasher) {
        case .done: break
        case .endedEarly: return ("truncated data", true)
        case .readFailed(let code), .writeFailed(let code):
            return (
                "not checked: \(POSIXCallError(call: "pread", path: folder.qualified(entry.fileName), code: code))",
                false
            )
        }
        return hasher.finalize() == info.contentHash ? nil : ("checksum mismatch", true)
    }
}
