import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Exclusive access to a ``FileDataSource`` folder without opening the store: lists, verifies and removes
/// entry files, for tools such as `strata`.
///
/// An inspector takes the store's lock (`.strata-lock`) for as long as it lives, exactly as a store does, so
/// it fails with ``Strata/StrataError/Code/alreadyInUse`` while a store (in this process or another) uses the
/// folder, and no store can open the folder meanwhile. Unlike opening a store, listing and verifying change
/// nothing: damaged files are reported, not removed. Only files named like entries (32 hex digits and
/// `.strata`) are ever removed; other files in the folder stay.
///
/// ```swift
/// let inspector = try FileStoreInspector(folder: imagesFolder)
/// let damaged = inspector.verify().filter { $0.problem != nil }
/// ```
public final class FileStoreInspector: Sendable {
    /// The store's folder.
    public let folderURL: URL

    private let folderPath: String
    private let claim: StoreClaim

    /// Takes the lock of the store in `folder`.
    ///
    /// - Parameter folder: A store's folder (``FileDataSource/folderURL``).
    /// - Throws: ``Strata/StrataError/Code/notFound`` when the folder does not exist,
    ///   ``Strata/StrataError/Code/alreadyInUse`` when a live store or inspector holds it,
    ///   ``Strata/StrataError/Code/io`` when the lock file cannot be opened.
    public init(folder: URL) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw StrataError.notFound("No folder at \(folder.path)")
        }
        claim = try StoreClaim.take(folder)
        folderURL = claim.folderURL
        folderPath = claim.folderPath
    }

    deinit {
        claim.release()
    }

    /// Whether `folder` looks like a ``FileDataSource`` folder: it holds the store's lock file, its access
    /// journal or an entry file.
    ///
    /// - Parameter folder: Any folder.
    public static func isStore(at folder: URL) -> Bool {
        let path = folder.path.hasSuffix("/") ? folder.path : folder.path + "/"
        let manager = FileManager.default
        if manager.fileExists(atPath: path + ".strata-lock")
            || manager.fileExists(atPath: path + AccessJournal.fileName)
        {
            return true
        }
        let names = (try? manager.contentsOfDirectory(atPath: path)) ?? []
        return names.contains { EntryName(fileName: $0) != nil }
    }

    /// The names of the entry files in the folder, in ascending order.
    private func entryFileNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []
        return names.filter { EntryName(fileName: $0) != nil }.sorted()
    }

    /// Reads the metadata of every entry file (one `open`, `fstat` and `pread` each) and the access journal,
    /// without reading the entries' data; files whose metadata is damaged come with a ``FileStoreEntry/problem``.
    ///
    /// - Parameter progress: Called after each file with the number of files read so far.
    /// - Returns: The entries, in file-name order.
    public func entries(progress: (Int) -> Void = { _ in }) -> [FileStoreEntry] {
        let journal = (try? Data(contentsOf: URL(fileURLWithPath: folderPath + AccessJournal.fileName))).map {
            AccessJournal.decode($0)
        }
        var result: [FileStoreEntry] = []
        for (position, fileName) in entryFileNames().enumerated() {
            result.append(describe(fileName, journal: journal ?? [:]))
            progress(position + 1)
        }
        return result
    }

    /// Reads every entry file in full and checks its metadata, that it holds the key its name stands for,
    /// and its data against the content hash; changes nothing.
    ///
    /// - Parameter progress: Called after each file with the number of files checked so far.
    /// - Returns: Every entry, in file-name order; damaged ones with a ``FileStoreEntry/problem``.
    public func verify(progress: (Int) -> Void = { _ in }) -> [FileStoreEntry] {
        var result = entries()
        for position in result.indices {
            if result[position].problem == nil, let problem = checkContent(of: result[position]) {
                result[position].problem = problem
            }
            progress(position + 1)
        }
        return result
    }

    /// Removes entry files by name; names that are not entry file names are ignored, and missing files
    /// count as removed.
    ///
    /// - Parameter fileNames: ``FileStoreEntry/fileName`` values.
    /// - Returns: How many files were removed.
    /// - Throws: ``Strata/StrataError/Code/io`` when a file cannot be removed (the others still are).
    @discardableResult
    public func remove(fileNames: [String]) throws -> Int {
        var removed = 0
        var failure: StrataError?
        for fileName in fileNames where EntryName(fileName: fileName) != nil {
            if POSIX.remove(folderPath + fileName) {
                removed += 1
            } else {
                failure = failure ?? POSIX.ioError("Removing", folderPath + fileName)
            }
        }
        if let failure { throw failure }
        return removed
    }

    /// Removes every entry file (damaged ones included) and the access journal; other files stay.
    ///
    /// - Returns: How many entry files were removed.
    /// - Throws: ``Strata/StrataError/Code/io`` when a file cannot be removed.
    @discardableResult
    public func removeAllEntries() throws -> Int {
        let removed = try remove(fileNames: entryFileNames())
        _ = POSIX.remove(folderPath + AccessJournal.fileName)
        return removed
    }

    private func describe(_ fileName: String, journal: [EntryName: AccessJournal.Record]) -> FileStoreEntry {
        let path = folderPath + fileName
        guard let name = EntryName(fileName: fileName) else {
            return FileStoreEntry(
                fileName: fileName,
                fileSize: 0,
                info: nil,
                accessSequence: 0,
                problem: "not an entry"
            )
        }
        guard let (trailer, length) = FileDataSource.readTrailer(path: path) else {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            return FileStoreEntry(
                fileName: fileName,
                fileSize: size,
                info: nil,
                accessSequence: 0,
                problem: "unreadable metadata (truncated or damaged)"
            )
        }
        var lastAccess = trailer.created
        var sequence = trailer.writeSequence
        if let record = journal[name], record.accessSequence > trailer.writeSequence {
            lastAccess = record.lastAccess
            sequence = record.accessSequence
        }
        let info = FileEntryInfo(
            key: trailer.key,
            size: trailer.payloadSize,
            created: trailer.created,
            lastAccess: lastAccess,
            expiresAt: trailer.expiresAt,
            eTag: trailer.eTag,
            lastModified: trailer.lastModified,
            contentHash: trailer.contentHash,
            attributes: trailer.attributes
        )
        let problem = EntryName(key: trailer.key) == name ? nil : "holds a key that belongs to another file"
        return FileStoreEntry(
            fileName: fileName,
            fileSize: length,
            info: info,
            accessSequence: sequence,
            problem: problem
        )
    }

    /// Hashes an entry's data and compares it with its content hash; the problem, or `nil`.
    private func checkContent(of entry: FileStoreEntry) -> String? {
        guard let info = entry.info else { return nil }
        let path = folderPath + entry.fileName
        let descriptor = POSIX.open(path, O_RDONLY)
        guard descriptor >= 0 else { return "unreadable (\(POSIX.lastError().code))" }
        defer { POSIX.close(descriptor) }
        var hasher = ContentChecksum()
        guard FileDataSource.hashFile(descriptor, size: info.size, into: &hasher) else { return "truncated data" }
        return hasher.finalize() == info.contentHash ? nil : "checksum mismatch"
    }
}
