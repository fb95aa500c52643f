internal import CStrataFiles
import Foundation

/// What is at a name inside a store folder, as seen without following links.
package enum ItemKind: Sendable, Equatable {
    case file
    case folder
    case link
    /// A socket, a device, a pipe: never a store's.
    case other
}

extension StoreFolder {
    /// Opens the file `name` with `flags` (`O_RDONLY`, `O_RDWR | O_CREAT`, …), never following a link, and never
    /// waiting: always `O_NONBLOCK`, so that a pipe or a device planted at the name cannot hang the open (a pipe with
    /// no writer opened for reading would wait for one for ever); a regular file's reads and writes do not heed it.
    /// Callers check what they opened is a regular file (``FileDescriptor/regularFileSize(_:)``).
    ///
    /// - Throws: ``POSIXCallError``; ``POSIXCallError/isLink`` when a link is at `name`.
    package func openFile(_ name: String, _ flags: Int32, mode: mode_t = 0o644) throws(POSIXCallError) -> Int32 {
        try Self.checkName(name)
        let fd = FileDescriptor.retryingInterrupts {
            openat(descriptor, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode)
        }
        guard fd >= 0 else { throw .last("openat", qualified(name)) }
        return fd
    }

    /// Creates a new file with an unpredictable name that starts with `prefix`, exclusively
    /// (`O_CREAT | O_EXCL | O_NOFOLLOW`): nothing planted at that name, a link least of all, is ever written through.
    ///
    /// - Returns: The open descriptor (write-only) and the name.
    package func createTemporary(prefix: String) throws(POSIXCallError) -> (descriptor: Int32, name: String) {
        try createTemporary(prefix: prefix, mode: 0o644)
    }

    /// Creates a new file as ``createTemporary(prefix:)`` does, with the permissions `mode` (less the process's
    /// umask): `0o600` for a file handed to a caller that only its owner may read.
    ///
    /// - Returns: The open descriptor (write-only) and the name.
    package func createTemporary(prefix: String, mode: mode_t) throws(POSIXCallError)
        -> (descriptor: Int32, name: String)
    {
        var lastError = POSIXCallError(call: "openat", path: qualified(prefix), code: EEXIST)
        // 64 random bits from the system's generator (`getrandom` on Linux): a clash is a planted name, and the
        // next draw is taken.
        for _ in 0..<8 {
            let name = prefix + String(UInt64.random(in: .min ... .max), radix: 16)
            do {
                let fd = try openFile(name, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
                return (fd, name)
            } catch {
                lastError = error
                if !error.alreadyExists { break }
            }
        }
        throw lastError
    }

    /// Whether `name` has the form of a name ``createTemporary(prefix:)`` makes: `prefix`, then 1 to 16 lowercase
    /// hexadecimal digits. A store removes leftover temporary files by this form, not by the prefix alone, so a
    /// user's file that merely starts like one (`.tmp-draft.txt`) is never taken for the store's.
    package static func isTemporaryName(_ name: String, prefix: String) -> Bool {
        guard name.utf8.starts(with: prefix.utf8) else { return false }
        let digits = name.utf8.dropFirst(prefix.utf8.count)
        return (1...16).contains(digits.count)
            && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Copies the open file `source`, all of it, into a new file created as ``createTemporary(prefix:mode:)``
    /// creates one (with `mode`): nothing is followed or overwritten on either side, whatever the source's path now
    /// names.
    ///
    /// - Returns: The new file's name.
    /// - Throws: ``POSIXCallError``; the new file is removed then.
    package func copyIn(_ source: Int32, temporaryPrefix: String, mode: mode_t = 0o644) throws(POSIXCallError)
        -> String
    {
        let (fd, name) = try createTemporary(prefix: temporaryPrefix, mode: mode)
        defer { _ = close(fd) }
        guard FileDescriptor.copy(from: source, to: fd) else {
            let error = POSIXCallError.last("copy", qualified(name))
            _ = try? remove(name)
            throw error
        }
        return name
    }

    /// Reads the whole regular file `name`, at most `limit` bytes, into one buffer of its size; `nil` when
    /// nothing is there.
    ///
    /// - Throws: ``POSIXCallError``: a link (``POSIXCallError/isLink``), anything but a regular file
    ///   (``POSIXCallError/isWrongKind``), or a file longer than `limit` (`EFBIG`: a sparse terabyte planted at
    ///   the name is refused before any buffer is made for it).
    package func readFile(_ name: String, limit: Int) throws(POSIXCallError) -> Data? {
        let fd: Int32
        do {
            // O_NONBLOCK: a pipe planted at the name cannot hang the open (the type check below refuses it).
            fd = try openFile(name, O_RDONLY | O_NONBLOCK)
        } catch {
            if error.isNotFound { return nil }
            throw error
        }
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .last("fstat", qualified(name)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw POSIXCallError(call: "read", path: qualified(name), code: EISDIR)
        }
        let tooLarge = POSIXCallError(call: "read", path: qualified(name), code: EFBIG)
        guard info.st_size <= limit else { throw tooLarge }
        // One buffer of the file's size plus one byte (to notice a file that grew), then chunks only if it did,
        // never past the limit.
        var data = Data(count: max(Int(info.st_size), 0) + 1)
        var length = 0
        while true {
            if length == data.count {
                guard length <= limit else { throw tooLarge }
                data.count = min(data.count + max(64 * 1024, data.count), limit + 1)
            }
            let count = data.withUnsafeMutableBytes { buffer in
                let start = buffer.baseAddress.map { $0 + length }
                return FileDescriptor.retryingInterrupts { read(fd, start, buffer.count - length) }
            }
            if count < 0 { throw .last("read", qualified(name)) }
            if count == 0 { break }
            length += count
        }
        guard length <= limit else { throw tooLarge }
        data.count = length
        return data
    }

    /// Writes `bytes` to `name` atomically: an exclusively created temporary file, then `renameat` over the name.
    ///
    /// With `durable`, the file is flushed before the rename and the folder after it.
    package func writeAtomically(
        _ bytes: UnsafeRawBufferPointer,
        to name: String,
        temporaryPrefix: String,
        durable: Bool
    ) throws(POSIXCallError) {
        try Self.checkName(name)
        let (fd, temporary) = try createTemporary(prefix: temporaryPrefix)
        // The descriptor is closed exactly once, on every path: a second `close` of its number would close whatever
        // another thread was given that number meanwhile.
        let written: POSIXCallError? =
            if !FileDescriptor.writeAll(fd, bytes) {
                .last("write", qualified(temporary))
            } else if durable, !FileDescriptor.sync(fd) {
                .last("fsync", qualified(temporary))
            } else {
                nil
            }
        _ = close(fd)
        do throws(POSIXCallError) {
            if let written { throw written }
            try rename(temporary, to: name)
        } catch {
            _ = try? remove(temporary)
            throw error
        }
        if durable { try sync() }
    }

    /// Writes `bytes` (an array, `Data`) to `name` atomically; see
    /// ``writeAtomically(_:to:temporaryPrefix:durable:)``.
    package func writeAtomically(
        _ bytes: some ContiguousBytes,
        to name: String,
        temporaryPrefix: String,
        durable: Bool
    ) throws(POSIXCallError) {
        let result: Result<Void, POSIXCallError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(POSIXCallError) in
                try writeAtomically(buffer, to: name, temporaryPrefix: temporaryPrefix, durable: durable)
            }
        }
        try result.get()
    }

    /// Renames `name` to `newName` in `destination` (by default this folder), replacing what is there.
    ///
    /// A link at `newName` is replaced, never written through; a link at `name` is moved as a link.
    package func rename(_ name: String, to newName: String, in destination: StoreFolder? = nil) throws(POSIXCallError) {
        try Self.checkName(name)
        try Self.checkName(newName)
        let target = (destination ?? self).descriptor
        guard FileDescriptor.retryingInterrupts({ renameat(descriptor, name, target, newName) }) == 0 else {
            throw .last("renameat", qualified(name))
        }
    }

    /// Renames `name` to `newName` in this folder only when nothing is at `newName`: one `renameat2` with
    /// `RENAME_NOREPLACE` on Linux, `renameatx_np` with `RENAME_EXCL` on Darwin, so an item planted at `newName` is
    /// never replaced, however late it came.
    ///
    /// Where the system or the file system cannot rename so (`EINVAL`, `ENOSYS`, `ENOTSUP`), `newName` is looked
    /// at first and the rename made only when nothing is there (a planted item can then win the instant between).
    /// - Throws: ``POSIXCallError``; ``POSIXCallError/alreadyExists`` when something is at `newName`.
    package func renameWithoutReplacing(_ name: String, to newName: String) throws(POSIXCallError) {
        try Self.checkName(name)
        try Self.checkName(newName)
        let renamed = FileDescriptor.retryingInterrupts {
            strata_renameat_noreplace(descriptor, name, descriptor, newName)
        }
        if renamed == 0 { return }
        let error = POSIXCallError.last("renameat2", qualified(name))
        guard [EINVAL, ENOSYS, ENOTSUP, EOPNOTSUPP].contains(error.code) else { throw error }
        if try status(of: newName) != nil {
            throw POSIXCallError(call: "renameat2", path: qualified(newName), code: EEXIST)
        }
        try rename(name, to: newName)
    }

    /// Removes the file or link `name` (a link itself, never what it points to); false when nothing was there.
    ///
    /// - Throws: ``POSIXCallError``; ``POSIXCallError/isWrongKind`` when `name` is a folder.
    @discardableResult
    package func remove(_ name: String) throws(POSIXCallError) -> Bool {
        try Self.checkName(name)
        if FileDescriptor.retryingInterrupts({ unlinkat(descriptor, name, 0) }) == 0 { return true }
        if errno == ENOENT { return false }
        let error = POSIXCallError.last("unlinkat", qualified(name))
        // Linux says `EISDIR` for a folder; Darwin and the BSDs say `EPERM`, which callers would take for a want of
        // permission: told by the item's kind.
        if error.code == EPERM, (try? kind(of: name)) == .folder {
            throw POSIXCallError(call: "unlinkat", path: qualified(name), code: EISDIR)
        }
        throw error
    }

    /// Removes the empty folder `name`; false when nothing was there.
    @discardableResult
    package func removeEmptyFolder(_ name: String) throws(POSIXCallError) -> Bool {
        try Self.checkName(name)
        if FileDescriptor.retryingInterrupts({ unlinkat(descriptor, name, AT_REMOVEDIR) }) == 0 { return true }
        if errno == ENOENT { return false }
        throw .last("unlinkat", qualified(name))
    }

    /// What is at `name`, without following a link; `nil` when nothing is.
    package func kind(of name: String) throws(POSIXCallError) -> ItemKind? {
        try status(of: name).map { Self.kind(mode: $0.st_mode) }
    }

    /// `fstatat` without following a link; `nil` when nothing is at `name`.
    package func status(of name: String) throws(POSIXCallError) -> stat? {
        try Self.checkName(name)
        var info = stat()
        if FileDescriptor.retryingInterrupts({ fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) }) == 0 {
            return info
        }
        if errno == ENOENT { return nil }
        throw .last("fstatat", qualified(name))
    }

    /// The kind a `st_mode` names.
    package static func kind(mode: mode_t) -> ItemKind {
        switch mode & S_IFMT {
        case S_IFREG: .file
        case S_IFDIR: .folder
        case S_IFLNK: .link
        default: .other
        }
    }

    /// Where `d_name` lies in a `dirent`.
    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 0

    /// The names in the folder (without `.` and `..`, nor any that is not valid UTF-8) and what each is, links
    /// reported as links.
    package func items() throws(POSIXCallError) -> [(name: String, kind: ItemKind)] {
        var items: [(name: String, kind: ItemKind)] = []
        try forEachItem { name, kind in items.append((name, kind)) }
        return items
    }

    /// Calls `body` with each name in the folder and what it is, as the walk below does, for a `body` that throws
    /// nothing: the only error is the listing's.
    package func forEachItem(_ body: (_ name: String, _ kind: ItemKind) -> Void) throws(POSIXCallError) {
        do {
            try forEachItem { (name: String, kind: ItemKind) throws in body(name, kind) }
        } catch let error as POSIXCallError {
            throw error
        } catch {
            // The listing throws only its own errors and `body`'s, and `body` throws none.
            throw POSIXCallError(call: "readdir", path: path, code: EIO)
        }
    }

    /// Calls `body` with each name in the folder and what it is, as ``items()`` lists them, holding none of them: a
    /// listing of a folder of millions of names takes the memory of one. `body` may remove or rename the item it is
    /// given (another item may then be listed or not, as `readdir` says for a folder changed while it is read).
    ///
    /// - Throws: The ``POSIXCallError`` of the listing, or what `body` throws (the listing then stops).
    package func forEachItem(_ body: (_ name: String, _ kind: ItemKind) throws -> Void) throws {
        // `fdopendir` takes the descriptor over, so it is given one of its own: the folder opened again through the
        // held one (`.`, no path walked). Not a duplicate, which would share its read position with every other
        // listing of the folder: two at once would each see part of it, and take that for the whole.
        let copy = FileDescriptor.retryingInterrupts { openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard copy >= 0 else { throw POSIXCallError.last("openat", path) }
        guard let stream = fdopendir(copy) else {
            let error = POSIXCallError.last("fdopendir", path)
            _ = close(copy)
            throw error
        }
        defer { closedir(stream) }
        rewinddir(stream)
        while true {
            // `readdir` answers `nil` at the end and on a failure, which only `errno` tells apart: a listing cut
            // short by an I/O error is thrown, never taken for the whole folder.
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw POSIXCallError.last("readdir", path) }
                break
            }
            // The name is read where it lies, up to its NUL: a record is only as long as its name, so copying the
            // whole `d_name` array (256 bytes) would read past the end of the last record in the buffer.
            // A name that is not UTF-8 is left out: repaired into a string, it would name another item (a user's file
            // named with U+FFFD where this one has an invalid byte), and no name a store makes is such.
            guard
                let name = String(
                    validatingCString: UnsafeRawPointer(entry).advanced(by: Self.nameOffset)
                        .assumingMemoryBound(to: CChar.self)
                )
            else { continue }
            if name == "." || name == ".." { continue }
            let kind: ItemKind
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): kind = .file
            case Int32(DT_DIR): kind = .folder
            case Int32(DT_LNK): kind = .link
            case Int32(DT_UNKNOWN):
                // Some file systems do not fill in the type: ask, without following a link.
                guard let found = try self.kind(of: name) else { continue }
                kind = found
            default: kind = .other
            }
            try body(name, kind)
        }
    }
}
