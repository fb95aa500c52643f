import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store's folder, held open: every call on a name inside it is made relative to this descriptor
/// (`openat`, `renameat`, `unlinkat`, `fstatat`) and never follows a symbolic link.
///
/// Renaming or replacing the folder's path after it was opened cannot redirect a call: the descriptor keeps
/// naming the folder that was opened. Names are single path components; a name with `/` or `..` is refused.
///
/// The security model this serves: a store writes, renames and deletes only names it created, in the folder it
/// opened, and a link anywhere inside is damage, not a way out.
package final class StoreFolder: Sendable {
    /// The open folder (`O_DIRECTORY | O_NOFOLLOW`).
    package let descriptor: Int32

    /// The path the folder was opened at, for messages; never used to reach a file.
    package let path: String

    /// The folder's device and inode: its identity, whatever path reached it.
    package let identity: FolderIdentity

    private init(descriptor: Int32, path: String, identity: FolderIdentity) {
        self.descriptor = descriptor
        self.path = path
        self.identity = identity
    }

    deinit {
        _ = close(descriptor)
    }

    /// Opens the folder at `path`, making it (and its parents) first when `create` is true.
    ///
    /// The last component must be a real folder: a link there is refused with `ELOOP` (the user gave the path,
    /// so links among its parents are theirs and are followed). With `durable`, the parent of every folder made
    /// is flushed (``sync()``), so the new folder's name survives a power loss as the files written in it do.
    /// - Throws: ``POSIXCallError``.
    package static func open(
        _ path: String,
        create: Bool,
        durable: Bool = false
    ) throws(POSIXCallError) -> StoreFolder {
        let trimmed = path.utf8.count > 1 && path.utf8.last == slash ? String(path.utf8.dropLast()) ?? path : path
        var fd = openFolder(AT_FDCWD, trimmed)
        if fd < 0, errno == ENOENT, create {
            var made: [String] = []
            try makeFolders(trimmed, made: &made)
            if durable {
                // Outermost first: each parent's entry for the folder made in it.
                for folder in made.reversed() { try syncParent(of: folder) }
            }
            fd = openFolder(AT_FDCWD, trimmed)
        }
        guard fd >= 0 else { throw .last("open", trimmed) }
        return try adopt(fd, path: trimmed)
    }

    /// Opens the subfolder `name`, making it first when `create` is true; `nil` when it is missing and not made.
    ///
    /// With `durable`, this folder is flushed (``sync()``) when the subfolder was made, as
    /// ``open(_:create:durable:)`` flushes the parent of every folder it makes: the new name survives a power loss
    /// as the files written in it do.
    /// - Throws: ``POSIXCallError`` — ``POSIXCallError/isLink`` for a link, ``POSIXCallError/isWrongKind`` for a
    ///   file where the folder should be.
    package func subfolder(_ name: String, create: Bool, durable: Bool = false) throws(POSIXCallError) -> StoreFolder? {
        try Self.checkName(name)
        var fd = Self.openFolder(descriptor, name)
        if fd < 0, errno == ENOENT {
            guard create else { return nil }
            if FileDescriptor.retryingInterrupts({ mkdirat(descriptor, name, 0o755) }) == 0 {
                if durable { try sync() }
            } else if errno != EEXIST {
                throw .last("mkdirat", qualified(name))
            }
            fd = Self.openFolder(descriptor, name)
        }
        guard fd >= 0 else {
            // Linux answers `O_DIRECTORY | O_NOFOLLOW` on a link with ENOTDIR: tell a link apart.
            let error = POSIXCallError.last("openat", qualified(name))
            if error.code == ENOTDIR, (try? kind(of: name)) == .link {
                throw POSIXCallError(call: "openat", path: qualified(name), code: ELOOP)
            }
            throw error
        }
        return try Self.adopt(fd, path: qualified(name))
    }

    /// `path/name`, for messages.
    package func qualified(_ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    /// Flushes the folder's entries (creations, renames, removals) to stable storage.
    package func sync() throws(POSIXCallError) {
        guard FileDescriptor.sync(descriptor) else { throw .last("fsync", path) }
        countSync()
    }

    // MARK: - Opening

    private static func openFolder(_ base: Int32, _ name: String) -> Int32 {
        FileDescriptor.retryingInterrupts { openat(base, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
    }

    private static func adopt(_ fd: Int32, path: String) throws(POSIXCallError) -> StoreFolder {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = POSIXCallError.last("fstat", path)
            _ = close(fd)
            throw error
        }
        return StoreFolder(
            descriptor: fd,
            path: path,
            identity: FolderIdentity(info)
        )
    }

    /// `mkdir -p`, following links among the parents (the caller's path), making the missing ones; appends each
    /// folder it made to `made`, innermost first.
    private static func makeFolders(_ path: String, made: inout [String]) throws(POSIXCallError) {
        if FileDescriptor.retryingInterrupts({ mkdir(path, 0o755) }) == 0 {
            made.append(path)
            return
        }
        if errno == EEXIST { return }
        guard errno == ENOENT else { throw .last("mkdir", path) }
        guard let parent = parentPath(of: path), parent != "/" else { throw .last("mkdir", path) }
        var parents: [String] = []
        try makeFolders(parent, made: &parents)
        if mkdir(path, 0o755) == 0 {
            made.append(path)
        } else if errno != EEXIST {
            throw .last("mkdir", path)
        }
        made.append(contentsOf: parents)
    }

    /// Flushes the folder that holds `path` (its parent, reached through links as the caller's path is), so that
    /// the entry for `path` in it is on stable storage.
    private static func syncParent(of path: String) throws(POSIXCallError) {
        let parent = parentPath(of: path) ?? "."
        let fd = FileDescriptor.retryingInterrupts { openat(AT_FDCWD, parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw .last("open", parent) }
        try adopt(fd, path: parent).sync()
    }

    /// The byte `/`: paths are split at it by bytes, never by `Character` (a combining mark after a `/` makes the two
    /// one `Character`, which a search for `"/"` does not find).
    private static let slash = UInt8(ascii: "/")

    /// The path of the folder that holds `path`: what comes before its last `/` (`/` for a path right under the
    /// root), `nil` when it has none.
    private static func parentPath(of path: String) -> String? {
        guard let index = path.utf8.lastIndex(of: slash) else { return nil }
        return index == path.startIndex ? "/" : String(path[..<index])
    }

    /// Refuses a name that is not one path component.
    package static func checkName(_ name: String) throws(POSIXCallError) {
        if name.isEmpty || name == "." || name == ".." || name.utf8.contains(slash)
            || name.utf8.contains(0)
        {
            throw POSIXCallError(call: "name", path: name, code: EINVAL)
        }
    }
}

/// A folder's (or a file's) identity: device and inode numbers, the same through every path, link or bind mount that
/// reaches it.
package struct FolderIdentity: Hashable, Sendable, CustomStringConvertible {
    package let device: UInt64
    package let inode: UInt64

    package var description: String { "device \(device), inode \(inode)" }

    /// The identity of what `status` describes.
    ///
    /// - Parameter status: What `stat` said of the folder or file.
    package init(_ status: stat) {
        device = UInt64(truncatingIfNeeded: status.st_dev)
        inode = UInt64(truncatingIfNeeded: status.st_ino)
    }

    /// The identity of the file or folder `descriptor` has open; `nil` when `fstat` fails.
    package init?(openFile descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The identity of what `path` names, a link itself rather than what it points to; `nil` when nothing is there.
    package init?(itemAt path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        self.init(status)
    }
}
