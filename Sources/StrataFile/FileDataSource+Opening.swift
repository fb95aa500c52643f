import Strata
import StrataStorage

extension FileDataSource {
    /// The prefix of the store's temporary files (unpredictable names, created exclusively); leftovers of a
    /// crash are removed when the store opens.
    static let temporaryPrefix = ".strata-tmp-"

    /// Whether `item` is a temporary file a write left behind: only a name of the form the store makes, a file,
    /// or a link planted in its place (removed, never followed).
    static func isLeftoverTemporary(_ item: (name: String, kind: ItemKind)) -> Bool {
        StoreFolder.isTemporaryName(item.name, prefix: temporaryPrefix) && (item.kind == .file || item.kind == .link)
    }

    /// The kind the store's marker (`.strata-store`) names.
    static let markerKind = "file"

    /// Reads the trailer of every entry file in the folder (one `openat`, `fstat` and `pread` each), discards
    /// damaged entries (a link or a folder at an entry's name included, and a trailer at or past
    /// ``EntryTrailer/openingSequenceLimit``) and leftover temporary files, applies the access journal and builds
    /// the index.
    ///
    /// An entry file that cannot be read for another reason (`EACCES`, `EPERM` while a device is locked, `EIO`) is
    /// reported to `diagnostics` as ``Strata/StrataError/Code/io`` and left where it is, out of the index (its key
    /// is in the trailer that could not be read): a later open takes it in, and ``removeAll()`` or a
    /// ``removeValue(forKey:)`` of its key removes it (when sealed) or sets it aside all the same.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when the folder cannot be listed whole, or the process or system
    ///   runs out of descriptors or memory while reading the trailers: an index with entries missing is never
    ///   built; ``Strata/StrataError/Code/tooLarge`` as soon as the entries read take more than
    ///   `maximumMetadataSize` bytes of keys and metadata, so that a folder cannot make the index hold more.
    static func load(
        _ folder: StoreFolder,
        maximumMetadataSize: Int,
        diagnostics: (@Sendable (StrataError) -> Void)?
    ) throws(StrataError) -> (index: EntryIndex, corrupt: Int) {
        var loaded: [EntryIndex.Entry] = []
        var legacy: [(fileName: String, entry: EntryIndex.Entry)] = []
        var corrupt = 0
        var budget = MetadataBudget(limit: maximumMetadataSize)
        func take(_ entry: EntryIndex.Entry) throws(StrataError) -> EntryIndex.Entry {
            try budget.take(
                entry.metadataSize,
                at: entry.name.fileName,
                in: folder,
                outcome: "the store was not opened, and evicted nothing"
            )
            return entry
        }
        // Each item is taken as it is listed: a folder of millions of names is never held whole.
        func visit(_ item: (name: String, kind: ItemKind)) throws(StrataError) {
            if item.name.hasPrefix(temporaryPrefix) {
                if isLeftoverTemporary(item) { _ = try? folder.remove(item.name) }
                return
            }
            guard let name = EntryName(fileName: item.name) else { return }
            let problem: EntryFileProblem
            switch item.kind {
            case .file:
                switch EntryFile.readTrailer(in: folder, fileName: item.name) {
                case .success(let (trailer, _, _)) where trailer.writeSequence >= EntryTrailer.openingSequenceLimit:
                    // Taken in, it would raise the counter to numbers the trailer parser refuses: every later
                    // write would read as damage and be removed.
                    problem = .damaged("a write sequence no store opens with")
                case .success(let (trailer, length, stamp)) where EntryName(key: trailer.key) == name:
                    loaded.append(
                        try take(
                            EntryIndex.Entry(
                                name: name,
                                trailer: trailer,
                                lastAccess: trailer.created,
                                accessSequence: trailer.writeSequence,
                                fileLength: length,
                                stamp: stamp
                            )
                        )
                    )
                    return
                case .success(let (trailer, length, stamp)) where EntryName(rawKey: trailer.key) == name:
                    // Named by an earlier version from a key not in NFC: renamed below to its NFC name.
                    let entry = EntryIndex.Entry(
                        name: EntryName(key: trailer.key),
                        trailer: trailer,
                        lastAccess: trailer.created,
                        accessSequence: trailer.writeSequence,
                        fileLength: length,
                        stamp: stamp
                    )
                    legacy.append((item.name, try take(entry)))
                    return
                case .success: problem = .damaged("holds another key")
                case .failure(.unreadable(let error)) where error.isOutOfResources:
                    throw error.strataError("Reading the entry file \(item.name)")
                case .failure(.unreadable(let error)):
                    diagnostics?(
                        StrataError(
                            .io,
                            "FileDataSource could not read the entry file \(folder.qualified(item.name)) when opening "
                                + "the store (\(error)): left out of the store until it can be read",
                            underlying: error
                        )
                    )
                    return
                case .failure(let failure): problem = failure
                }
            case .link: problem = .link
            case .folder, .other: problem = .notAFile
            }
            guard problem.isDamage, let outcome = EntryFile.discard(item.name, in: folder) else { return }
            corrupt += 1
            diagnostics?(
                StrataError(
                    .corrupt,
                    "FileDataSource found a damaged entry file \(folder.qualified(item.name)) when opening the store "
                        + "(\(problem)): \(outcome)"
                )
            )
        }
        do {
            try folder.forEachItem { name, kind in try visit((name, kind)) }
        } catch let error as StrataError {
            throw error
        } catch let error as POSIXCallError {
            throw error.strataError("Listing the store folder")
        } catch {
            throw StrataError.io("Listing the store folder", underlying: error)
        }
        migrate(legacy, into: &loaded, in: folder)
        let journal = try readJournal(folder, diagnostics: diagnostics)
        var index = EntryIndex()
        for position in loaded.indices {
            let entry = loaded[position]
            index.observe(sequence: entry.trailer.writeSequence)
            guard let record = journal[entry.name] else { continue }
            index.observe(sequence: record.accessSequence)
            if record.accessSequence > entry.trailer.writeSequence {
                loaded[position].accessSequence = record.accessSequence
                loaded[position].lastAccess = record.lastAccess
            }
        }
        // Least recently used first: each insert becomes the most recently used.
        for entry in loaded.sorted(by: { $0.accessSequence < $1.accessSequence }) {
            index.insert(entry)
        }
        return (index, corrupt)
    }

    /// Renames the entry files an earlier version named from keys not in NFC to their NFC names, so that the key
    /// rule reaches them; one superseded by a later write of the same key is removed, one that cannot be renamed
    /// is left as it is (unreachable, as it was for a key spelled in NFC), as is one whose NFC name holds a file the
    /// store left out (unreadable, or a later version's), which it never replaces.
    private static func migrate(
        _ legacy: [(fileName: String, entry: EntryIndex.Entry)],
        into loaded: inout [EntryIndex.Entry],
        in folder: StoreFolder
    ) {
        guard !legacy.isEmpty else { return }
        // Each name's place, found once: a search of every loaded entry for each legacy file took minutes on a
        // large store an earlier version filled with such keys.
        var positions: [EntryName: Int] = [:]
        for (position, entry) in loaded.enumerated() where positions[entry.name] == nil {
            positions[entry.name] = position
        }
        for (fileName, entry) in legacy {
            let existing = positions[entry.name]
            if let existing, loaded[existing].trailer.writeSequence >= entry.trailer.writeSequence {
                _ = try? folder.remove(fileName)
                continue
            }
            do throws(POSIXCallError) {
                if existing != nil {
                    // Over the older entry loaded under the NFC name, which it supersedes.
                    try folder.rename(fileName, to: entry.name.fileName)
                } else {
                    // Never over a file the store left out there (unreadable, a later version's): the legacy file
                    // stays, unreachable.
                    try folder.renameWithoutReplacing(fileName, to: entry.name.fileName)
                }
            } catch {
                continue
            }
            if let existing {
                loaded[existing] = entry
            } else {
                positions[entry.name] = loaded.count
                loaded.append(entry)
            }
        }
    }

    /// The access journal's records; none when it is missing or damaged. A link or a folder at its name is
    /// discarded (reported when `diagnostics` is given), so the next save can write the journal.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when the process runs out of descriptors or memory reading it: taken
    ///   for none, every entry would fall back to its write order, which the next save makes permanent.
    static func readJournal(
        _ folder: StoreFolder,
        diagnostics: (@Sendable (StrataError) -> Void)?,
        discarding: Bool = true
    ) throws(StrataError) -> [EntryName: AccessJournal.Record] {
        do {
            let bytes = try folder.readFile(AccessJournal.fileName, limit: AccessJournal.maximumLength)
            return bytes.map { AccessJournal.decode([UInt8]($0)) } ?? [:]
        } catch {
            if error.isOutOfResources { throw error.strataError("Reading the access journal") }
            guard discarding, error.isLink || error.isWrongKind,
                let outcome = EntryFile.discard(AccessJournal.fileName, in: folder)
            else { return [:] }
            diagnostics?(
                StrataError(
                    .corrupt,
                    "FileDataSource found no access journal but "
                        + "\(error.isLink ? "a symbolic link" : "not a regular file")"
                        + " at \(folder.qualified(AccessJournal.fileName)): \(outcome)"
                )
            )
            return [:]
        }
    }
}
