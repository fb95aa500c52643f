import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One owner's hold on a store folder: within this process through a registry keyed by the folder's device and
/// inode (so an alias path, a link or a bind mount reaches the same entry), across processes through a POSIX
/// record lock on `.strata-lock`.
///
/// A record lock (`fcntl(F_SETLK)`), not `flock`: a `flock` lock belongs to the open file description, which a
/// child process inherits between `fork` and `exec`, so while any thread spawns a child a store that was just
/// closed still looks locked. A record lock belongs to the process. Its caveat — closing any descriptor of the
/// file releases it — cannot bite, because the registry lets one claim per folder per process open the file, and
/// a lock file that another name shares (a hard link of another folder's) is replaced with the claim's own.
///
/// The lock file can be removed or replaced while a store holds it (a user cleaning up dot files): a second
/// process would then lock a new file and open the store beside the first. So the claim also takes a `flock` of
/// the folder itself (`lockFolder`), which no file operation inside the folder can drop.
package final class StoreOwnership: Sendable {
    /// How a claim holds the folder.
    package enum Mode: Sendable {
        /// A store that writes: an exclusive lock, the lock file created when missing.
        case exclusive
        /// A reader that changes nothing (the tool's `inspect` and `verify`): a shared lock when the lock file
        /// exists, none when it does not; never creates a file, so it works on read-only media.
        case shared
    }

    /// The lock file's name in every store folder.
    package static let lockName = ".strata-lock"

    private static let registry = Locked<[FolderIdentity: String]>([:])

    /// The folder claimed.
    package let identity: FolderIdentity

    private let lockDescriptor: Int32
    private let folderLockDescriptor: Int32
    private let released = Locked(false)

    private init(identity: FolderIdentity, lockDescriptor: Int32, folderLockDescriptor: Int32) {
        self.identity = identity
        self.lockDescriptor = lockDescriptor
        self.folderLockDescriptor = folderLockDescriptor
    }

    deinit {
        release()
    }

    /// Claims `folder` for `owner` (named in the error another claimant gets).
    ///
    /// A link at the lock file's name is removed (the link, never its target) and the file made anew; a folder
    /// there is set aside under a new name. Neither is followed.
    /// - Throws: ``Strata/StrataError/Code/alreadyInUse`` when a live owner in this process or another holds the
    ///   folder, ``Strata/StrataError/Code/io`` when the lock file cannot be opened.
    package static func claim(_ folder: StoreFolder, mode: Mode, owner: String) throws(StrataError) -> StoreOwnership {
        let holder: String? = registry.withLock { owners in
            if let holder = owners[folder.identity] { return holder }
            owners[folder.identity] = owner
            return nil
        }
        if let holder {
            throw StrataError(.alreadyInUse, "\(folder.path) is already in use in this process by \(holder)")
        }
        do throws(StrataError) {
            let fd = try openLocked(in: folder, mode: mode)
            do throws(StrataError) {
                let folderFD = try lockFolder(folder, exclusive: mode == .exclusive)
                return StoreOwnership(identity: folder.identity, lockDescriptor: fd, folderLockDescriptor: folderFD)
            } catch {
                if fd >= 0 { _ = close(fd) }
                throw error
            }
        } catch {
            _ = registry.withLock { $0.removeValue(forKey: folder.identity) }
            throw error
        }
    }

    /// Gives the folder up: closes the lock file (releasing the lock) and leaves the registry. Idempotent.
    package func release() {
        let first = released.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        // The lock file first, while the entry stands: another claim of this folder let in by the entry's removal
        // would lock the file, and this close would then unlock it (a record lock belongs to the process). The
        // folder's descriptor last, once the entry is gone: closing it may free the folder's inode (a folder removed
        // under the claim), which a new folder can get at once, and its claim must not find this entry. (A claim of
        // this folder in between waits for the folder's `flock` to go, a moment.) No close is made under the
        // registry's lock: on a network file system a close can wait for the server, and every claim would wait too.
        if lockDescriptor >= 0 { _ = close(lockDescriptor) }
        _ = Self.registry.withLock { $0.removeValue(forKey: identity) }
        if folderLockDescriptor >= 0 { _ = close(folderLockDescriptor) }
    }

    /// Takes a `flock` of the folder itself (exclusive or shared, as the claim), on a descriptor of its own; where
    /// the file system does not take the lock, the descriptor is kept unlocked (the record lock then holds alone).
    /// Either way the claim holds the folder open, so its inode, the registry's key, cannot be given to another
    /// folder while the claim stands, even when the folder is removed; -1 only where the folder cannot be opened
    /// again.
    ///
    /// A `flock` belongs to an open file description, which a child process copies between `fork` and `exec`:
    /// for that moment a folder just released still looks locked. So a held lock is asked again every 5 ms for a
    /// second before the folder counts as in use; the record lock, checked first, is what refuses a live store
    /// at once, and this wait is reached only where the lock file was removed or replaced under a live store, or
    /// in that moment.
    ///
    /// - Throws: ``Strata/StrataError/Code/alreadyInUse`` when another process holds the folder.
    private static func lockFolder(_ folder: StoreFolder, exclusive: Bool) throws(StrataError) -> Int32 {
        let fd = FileDescriptor.retryingInterrupts {
            openat(folder.descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
        }
        guard fd >= 0 else {
            // Out of descriptors, the claim would hold for its whole life without the folder's lock.
            let error = POSIXCallError.last("openat", folder.path)
            if error.isOutOfResources { throw error.strataError("Locking the store folder") }
            return -1
        }
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
        for attempt in 0..<200 {
            if FileDescriptor.retryingInterrupts({ flock(fd, operation) }) == 0 { return fd }
            guard errno == EWOULDBLOCK else { return fd }
            if attempt < 199 { usleep(5_000) }
        }
        _ = close(fd)
        throw StrataError(
            .alreadyInUse,
            "Another process holds the store folder \(folder.path) (its lock file was removed or replaced while that "
                + "process had the store open)"
        )
    }

    /// Opens and locks the lock file; -1 for a shared claim when there is none. Where the file system takes no
    /// record lock (`ENOLCK`: NFS without its lock service), the file is kept unlocked, as ``lockFolder(_:exclusive:)``
    /// keeps the folder, and the claim holds by what else does.
    ///
    /// The lock must be on the file at the lock file's name, and (for an exclusive claim) on a file no other name
    /// reaches: a record lock belongs to the process and the file, so were the lock file a hard link of another
    /// store's, closing that store in this process would drop this one's lock too. Such a file is replaced by a
    /// fresh one, locked before it is renamed over the name while the old one's lock is still held, so no other
    /// claimant can lock either in between; the other names keep the old file. A claimant that locked a file the
    /// name no longer reaches (replaced meanwhile) tries again.
    /// - Throws: ``Strata/StrataError/Code/alreadyInUse`` when another process holds the lock,
    ///   ``Strata/StrataError/Code/io`` when the lock file cannot be opened or replaced.
    private static func openLocked(in folder: StoreFolder, mode: Mode) throws(StrataError) -> Int32 {
        for _ in 0..<3 {
            let fd = try openLock(in: folder, mode: mode)
            guard fd >= 0 else { return fd }
            guard lock(fd, exclusive: mode == .exclusive) != .heldElsewhere else {
                _ = close(fd)
                throw StrataError(.alreadyInUse, "Another process holds the store folder \(folder.path)")
            }
            guard isAtLockName(fd, in: folder) else {
                _ = close(fd)
                continue
            }
            if mode == .shared || FileDescriptor.isSoleRegularFile(fd) { return fd }
            defer { _ = close(fd) }  // the old file's lock, held until the fresh one has the name
            return try replaceLock(in: folder)
        }
        throw StrataError(.io, "The lock file \(folder.qualified(lockName)) keeps being replaced underneath the store")
    }

    /// Whether the open file `fd` is the one at the lock file's name.
    private static func isAtLockName(_ fd: Int32, in folder: StoreFolder) -> Bool {
        guard let opened = FolderIdentity(openFile: fd), let named = try? folder.status(of: lockName) else {
            return false
        }
        return opened == FolderIdentity(named)
    }

    /// Makes the claim a lock file of its own: a new file, exclusively created and locked, renamed over the lock
    /// file's name. Returns its descriptor.
    private static func replaceLock(in folder: StoreFolder) throws(StrataError) -> Int32 {
        do throws(POSIXCallError) {
            let (fd, name) = try folder.createTemporary(prefix: ".strata-tmp-")
            do throws(POSIXCallError) {
                guard lock(fd, exclusive: true) != .heldElsewhere else {
                    throw POSIXCallError(call: "fcntl", path: folder.qualified(name), code: EAGAIN)
                }
                try folder.rename(name, to: lockName)
                return fd
            } catch {
                _ = close(fd)
                _ = try? folder.remove(name)
                throw error
            }
        } catch {
            throw error.strataError("Replacing the store's lock file, which another name shares")
        }
    }

    /// Opens the lock file; -1 for a shared claim when there is none.
    private static func openLock(in folder: StoreFolder, mode: Mode) throws(StrataError) -> Int32 {
        // O_NONBLOCK: a pipe planted at the name cannot hang a shared claim's open.
        let flags = (mode == .exclusive ? O_RDWR | O_CREAT : O_RDONLY) | O_NONBLOCK
        for _ in 0..<2 {
            do throws(POSIXCallError) {
                let fd = try folder.openFile(lockName, flags)
                guard FileDescriptor.regularFileSize(fd) < 0 else { return fd }
                // A pipe or a device opened at the lock file's name: moved aside below, never replaced or removed.
                _ = close(fd)
                throw POSIXCallError(call: "open", path: folder.qualified(lockName), code: ENXIO)
            } catch {
                if mode == .shared, error.isNotFound || error.isLink || error.isWrongKind || error.code == ENXIO {
                    return -1
                }
                if error.isLink {
                    _ = try? folder.remove(lockName)
                    continue
                }
                if error.isWrongKind || error.code == ENXIO {
                    // A folder (or a socket, a pipe) at the lock file's name: moved aside, not removed.
                    let aside = lockName + ".damaged-" + String(UInt32.random(in: .min ... .max), radix: 16)
                    _ = try? folder.rename(lockName, to: aside)
                    continue
                }
                throw error.strataError("Opening the store's lock file")
            }
        }
        throw StrataError(.io, "Could not make the lock file in \(folder.path)")
    }

    /// What a record lock's `fcntl(F_SETLK)` came to.
    private enum RecordLock: Equatable {
        /// The lock is held.
        case held
        /// Another process holds the file (`EACCES`, `EAGAIN`).
        case heldElsewhere
        /// The file system takes no record lock (`ENOLCK`, `EINVAL`, `EOPNOTSUPP`…): the file is kept unlocked.
        case unsupported
    }

    /// A test seam: an `errno` every record lock fails with, as on a file system without lock service (`ENOLCK`).
    @TaskLocal static var failingRecordLocks: Int32?

    /// Takes the record lock of `fd`, a call interrupted by a signal made again.
    private static func lock(_ fd: Int32, exclusive: Bool) -> RecordLock {
        let code: Int32
        if let failing = failingRecordLocks {
            code = failing
        } else {
            #if canImport(Darwin)
                var lock = Darwin.flock()
            #elseif canImport(Glibc)
                var lock = Glibc.flock()
            #else
                var lock = Musl.flock()
            #endif
            lock.l_type = Int16(exclusive ? F_WRLCK : F_RDLCK)
            lock.l_whence = Int16(SEEK_SET)
            lock.l_start = 0
            lock.l_len = 0
            if FileDescriptor.retryingInterrupts({ fcntl(fd, F_SETLK, &lock) }) == 0 { return .held }
            code = errno
        }
        return code == EACCES || code == EAGAIN ? .heldElsewhere : .unsupported
    }
}
