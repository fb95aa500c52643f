import StrataStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why an item at an entry's name is not a readable entry.
enum EntryFileProblem: Error, CustomStringConvertible {
    /// Nothing is there (removed behind the store's back).
    case missing
    /// A symbolic link: never followed, whatever it points to.
    case link
    /// A folder, a socket, a pipe or a device.
    case notAFile
    /// A regular file whose trailer is sealed (magic, length and checksum intact) but that is not a whole,
    /// undamaged entry: the store's own file, damaged.
    case damaged(String)
    /// A file of another length than the index says: damaged, unless it is as long again when the store looks under
    /// its lock (a renewal that made room past its end and gave it back).
    case wrongLength(String)
    /// A regular file without a sealed trailer: nothing proves the store wrote it, so it is set aside, never
    /// deleted.
    case foreign
    /// The file cannot be read (permissions, an I/O error); it is left alone.
    case unreadable(POSIXCallError)
    /// A regular file whose trailer is sealed in a layout of a later version than this one knows (a store a newer
    /// build wrote, opened by an older one after a downgrade): the store's own, and whole for that version, so it is
    /// left alone, not read and not removed.
    case newer(UInt8)

    /// The problem for a failed `openat` of an entry file.
    init(opening error: POSIXCallError) {
        if error.isNotFound {
            self = .missing
        } else if error.isLink {
            self = .link
        } else if error.isWrongKind || error.code == ENXIO {
            self = .notAFile
        } else {
            self = .unreadable(error)
        }
    }

    var description: String {
        switch self {
        case .missing: "missing"
        case .link: "a symbolic link"
        case .notAFile: "not a regular file"
        case .damaged(let reason), .wrongLength(let reason): reason
        case .foreign: "no sealed trailer, so perhaps not the store's file"
        case .unreadable(let error): "unreadable: \(error)"
        case .newer(let version): "written in layout \(version) by a later version of Strata: left as it is"
        }
    }

    /// Whether the item is damage the store discards (removes, or sets aside when it is not a file).
    var isDamage: Bool {
        switch self {
        case .missing, .unreadable, .newer: false
        case .link, .notAFile, .damaged, .wrongLength, .foreign: true
        }
    }
}

/// Reading and discarding the items at entry names in a store's folder, never following a link.
enum EntryFile {
    /// The flags every entry file is opened with for reading: `O_NONBLOCK` so that a pipe planted at an entry's
    /// name cannot hang the open (it changes nothing for a regular file); ``StoreFolder`` adds `O_NOFOLLOW`.
    static let readFlags = O_RDONLY | O_NONBLOCK

    /// The trailer of the entry file `fileName`, the file's length and its stamp (one `openat`, `fstat` and
    /// `pread`).
    static func readTrailer(
        in folder: StoreFolder,
        fileName: String
    ) -> Result<(trailer: EntryTrailer, length: Int, stamp: FileStamp), EntryFileProblem> {
        opening(fileName, in: folder, readTrailer)
    }

    /// ``readTrailer(in:fileName:)`` of the file `descriptor` has open (one `fstat` and `pread`).
    static func readTrailer(
        _ descriptor: Int32
    ) -> Result<(trailer: EntryTrailer, length: Int, stamp: FileStamp), EntryFileProblem> {
        readSealedTrailer(descriptor).flatMap { tail, stamp in
            let trailer = tail.withUnsafeBytes { bytes in
                EntryTrailer(bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - 8)]))
            }
            let length = Int(stamp.size)
            guard let trailer, trailer.payloadSize + tail.count == length else {
                if let version = tail.first, version > EntryTrailer.taggedVersion { return .failure(.newer(version)) }
                return .failure(.damaged("unreadable metadata"))
            }
            return .success((trailer, length, stamp))
        }
    }

    /// The trailer's bytes (the footer's length and magic included) at the end of the entry file `fileName` when
    /// they are sealed — the magic, a trailer length that fits the file and a checksum that matches — and the
    /// file's stamp (its length among it): the proof that the store wrote the file. ``EntryFileProblem/foreign``
    /// when they are not.
    private static func readSealedTrailer(
        in folder: StoreFolder,
        fileName: String
    ) -> Result<(tail: ArraySlice<UInt8>, stamp: FileStamp), EntryFileProblem> {
        opening(fileName, in: folder, readSealedTrailer)
    }

    /// `body` on the entry file `fileName` opened for reading (never through a link), closed after it; why it
    /// could not be opened otherwise.
    private static func opening<Found>(
        _ fileName: String,
        in folder: StoreFolder,
        _ body: (Int32) -> Result<Found, EntryFileProblem>
    ) -> Result<Found, EntryFileProblem> {
        let descriptor: Int32
        do {
            descriptor = try folder.openFile(fileName, readFlags)
        } catch {
            return .failure(EntryFileProblem(opening: error))
        }
        defer { _ = close(descriptor) }
        return body(descriptor)
    }

    /// ``readSealedTrailer(in:fileName:)`` of the file `descriptor` has open (one `fstat` and `pread`).
    private static func readSealedTrailer(
        _ descriptor: Int32
    ) -> Result<(tail: ArraySlice<UInt8>, stamp: FileStamp), EntryFileProblem> {
        guard let stamp = FileStamp(openFile: descriptor), let length = Int(exactly: stamp.size) else {
            return .failure(.notAFile)
        }
        guard length >= EntryTrailer.minimumLength else { return .failure(.foreign) }
        var tail = [UInt8](repeating: 0, count: min(length, 4096))
        guard readTail(descriptor, into: &tail, fileLength: length),
            let trailerLength = tail.withUnsafeBytes({ EntryTrailer.trailerLength(footer: $0) }),
            trailerLength + 8 <= length
        else { return .failure(.foreign) }
        if trailerLength + 8 > tail.count {
            tail = [UInt8](repeating: 0, count: trailerLength + 8)
            guard readTail(descriptor, into: &tail, fileLength: length) else { return .failure(.foreign) }
        }
        let trailer = tail[(tail.count - 8 - trailerLength)...]
        let sealed = trailer.withUnsafeBytes { EntryTrailer.isSealed(UnsafeRawBufferPointer(rebasing: $0.dropLast(8))) }
        return sealed ? .success((trailer, stamp)) : .failure(.foreign)
    }

    /// Whether the regular file `fileName` ends in a sealed trailer (``readSealedTrailer(in:fileName:)``).
    static func isSealed(_ fileName: String, in folder: StoreFolder) -> Bool {
        (try? readSealedTrailer(in: folder, fileName: fileName).get()) != nil
    }

    /// Reads the last `tail.count` bytes of a file of `fileLength` bytes.
    private static func readTail(_ descriptor: Int32, into tail: inout [UInt8], fileLength: Int) -> Bool {
        let count = tail.count
        let read = tail.withUnsafeMutableBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return -1 }
            return FileDescriptor.read(descriptor, into: base, count: count, at: fileLength - count)
        }
        return read == count
    }

    /// What ``dispose(_:in:)`` did with the item at an entry's name.
    enum Disposal: Equatable {
        /// Nothing was there.
        case absent
        /// The item was unlinked: a file whose trailer is sealed, or a link (never its target).
        case removed
        /// The item was renamed to this name, never deleted: a file without a sealed trailer, a folder, another
        /// non-file, or a file that could not be read to look for its trailer.
        case setAside(String)

        /// For a report: `removed`, `set aside as …`; `nil` when nothing was there.
        var report: String? {
            switch self {
            case .absent: nil
            case .removed: "removed"
            case .setAside(let name): "set aside as \(name)"
            }
        }
    }

    /// Clears the entry name `fileName`, deleting only what proves the store wrote it: a regular file is unlinked
    /// when it still has the stamp the store took of it (`written`: one `fstatat`), or else when the file opened
    /// ends in a sealed trailer and the name still holds that file (one `openat`, `fstat`, `pread` of the trailer
    /// and `fstatat`: never the data); a link is removed itself; anything else — a file without a sealed trailer
    /// (a user's, planted at the name), an unreadable file, a folder — is set aside.
    ///
    /// - Parameters:
    ///   - fileName: An entry name in `folder`.
    ///   - folder: The store's folder.
    ///   - written: The stamp of the file the store wrote or read at that name, when it has one: the same device,
    ///     inode, size and modification time prove the file unchanged since. (A file system whose clock ticks
    ///     coarsely — Linux before 6.13 gives ext4 a time per scheduler tick — cannot tell an edit of the same size
    ///     made within the tick of the store's write; from 6.13 a file whose time was read gets a finer one.)
    /// - Throws: ``StrataStorage/POSIXCallError`` when the item can be neither removed nor set aside.
    static func dispose(
        _ fileName: String,
        in folder: StoreFolder,
        written: FileStamp? = nil
    ) throws(POSIXCallError) -> Disposal {
        if let written, (try? folder.stamp(ofFile: fileName)) == written {
            return try folder.remove(fileName) ? .removed : .absent
        }
        let descriptor: Int32
        do {
            descriptor = try folder.openFile(fileName, readFlags)
        } catch {
            switch EntryFileProblem(opening: error) {
            case .missing: return .absent
            case .link: return try folder.remove(fileName) ? .removed : .absent
            default: return try setAsideOrThrow(fileName, in: folder)
            }
        }
        defer { _ = close(descriptor) }
        if (try? readSealedTrailer(descriptor).get()) != nil, let opened = FolderIdentity(openFile: descriptor),
            (try? folder.status(of: fileName)).flatMap({ $0.map(FolderIdentity.init) }) == opened
        {
            return try folder.remove(fileName) ? .removed : .absent
        }
        return try setAsideOrThrow(fileName, in: folder)
    }

    /// ``setAside(_:in:)``, or the rename's error; ``Disposal/absent`` when the item went meanwhile.
    private static func setAsideOrThrow(_ fileName: String, in folder: StoreFolder) throws(POSIXCallError) -> Disposal {
        let aside = setAsideName(fileName)
        do {
            try folder.rename(fileName, to: aside)
        } catch {
            if error.isNotFound { return .absent }
            throw error
        }
        return .setAside(aside)
    }

    /// Discards the damaged item at `fileName`: the access journal is removed, an entry name is cleared by
    /// ``dispose(_:in:)`` (a sealed file or a link removed, anything else set aside, never deleted).
    ///
    /// - Returns: What was done, for a report (`removed`, `set aside as …`); `nil` when nothing was there or the
    ///   item could not be discarded.
    static func discard(_ fileName: String, in folder: StoreFolder) -> String? {
        if fileName == AccessJournal.fileName, (try? folder.kind(of: fileName)) == .file {
            return (try? folder.remove(fileName)) == true ? "removed" : nil
        }
        return (try? dispose(fileName, in: folder))?.report
    }

    /// Renames the item at `fileName` to `<fileName>.damaged-<random>`, a name the store never reads or removes.
    ///
    /// - Returns: The new name; `nil` when the rename failed.
    static func setAside(_ fileName: String, in folder: StoreFolder) -> String? {
        let aside = setAsideName(fileName)
        return (try? folder.rename(fileName, to: aside)) != nil ? aside : nil
    }

    /// `<fileName>.damaged-<random>`.
    private static func setAsideName(_ fileName: String) -> String {
        fileName + setAsideInfix + String(UInt64.random(in: .min ... .max), radix: 16)
    }

    private static let setAsideInfix = ".damaged-"

    /// Whether `name` is what ``setAside(_:in:)`` made of an entry file or of the access journal.
    static func isSetAside(_ name: String) -> Bool {
        guard let infix = name.range(of: setAsideInfix, options: .backwards) else { return false }
        let original = String(name[..<infix.lowerBound])
        return EntryName(fileName: original) != nil || original == AccessJournal.fileName
    }
}
