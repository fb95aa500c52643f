import Foundation
import Strata
import StrataStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A `flock` on a store's lock file, which the tool takes beside the store's own record lock so that a process
/// holding the file with `flock` counts as using the store too.
///
/// Strata's stores hold `.strata-lock` with a POSIX record lock (`fcntl`), which also sees `lockf` and
/// open-file-description locks. On Linux a `flock` lock is invisible to record locks (and the other way round),
/// so the tool also takes a `flock` there: shared for a command that changes nothing, exclusive for one that
/// writes. Elsewhere nothing is done. The descriptor stays open until the tool exits: closing a descriptor of
/// the lock file would drop the record lock the tool's own store claim holds on it.
enum FlockHold {
    #if os(Linux)
        /// The lock file descriptors held, by folder: the tool opens a store again after a repair, and a second
        /// `flock` of its own would conflict with the first. Under a lock: the tool runs one thread, but its
        /// commands also run in a test process, several at once.
        private static let held = Locked<[FolderIdentity: Int32]>([:])
    #endif

    /// Takes the lock on `folder`'s lock file, if it has one and the tool does not hold it yet.
    ///
    /// - Throws: ``ToolError/failure(_:code:)`` with the code `inUse` when another process holds a `flock` on
    ///   it that conflicts.
    static func take(in folder: StoreFolder, exclusive: Bool) throws {
        #if os(Linux)
            try held.withLock { held in
                guard held[folder.identity] == nil else { return }
                // O_NONBLOCK: a pipe planted at the name cannot hang the open.
                guard let fd = try? folder.openFile(StoreOwnership.lockName, O_RDONLY | O_NONBLOCK) else { return }
                guard flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
                    let failure = errno
                    _ = close(fd)
                    guard failure == EWOULDBLOCK else { return }
                    throw ToolError.failure(
                        "the store is in use by another process; close it first (another process holds "
                            + "\(folder.qualified(StoreOwnership.lockName)) with flock)",
                        code: "inUse"
                    )
                }
                held[folder.identity] = fd
            }
        #endif
    }
}
