import Foundation
import Strata

extension POSIXCallError {
    /// The error a store reports for this failure: the code and the remedy of the errno table (``classification``), the call, the
    /// path and the system's words in the message, the POSIX error as its cause (so a caller can still match the
    /// exact `errno`, and a store can tell a rename across volumes apart).
    ///
    /// - Parameter action: What the store was doing ("Writing an entry").
    package func strataError(_ action: String) -> StrataError {
        let cause = POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        let (code, remedy) = classification
        let advice = remedy.map { ". \($0)" } ?? ""
        return StrataError(code, "\(action): \(description)\(advice)", underlying: cause)
    }

    /// The one errno table: the ``Strata/StrataError/Code`` of this failure and what the user can do about it.
    ///
    /// A file-system failure is ``Strata/StrataError/Code/io`` whatever its `errno` — a missing file included,
    /// because `notFound` means "no value for the query" to a repository, which would then ask the main source
    /// instead of reporting a broken store — except a path or name the caller gave that cannot be one
    /// (``Strata/StrataError/Code/invalidArgument``). The `errno` chooses the advice. `EINTR` never gets here: the
    /// layer retries it.
    package var classification: (code: StrataError.Code, remedy: String?) {
        switch code {
        case ENOENT:
            (.io, "It was removed or moved while in use: reopen the store, and keep other programs out of its folder")
        case EACCES, EPERM:
            (.io, "Permission denied: give this process read and write access to the folder, or use a folder it owns")
        case EROFS:
            (.io, "The volume is read-only: make it writable, or open the store in a writable folder")
        case ENOSPC, EDQUOT:
            (.io, "The disk is full (or the quota is used up): free space, or lower the store's size limit")
        case ELOOP, EMLINK:
            (.io, "A symbolic link is there: Strata never follows links inside a store folder; remove the link")
        case EEXIST:
            (.io, "Something is already at that name: remove it, or use another folder")
        case ENOTDIR, EISDIR:
            (
                .io,
                "A file is where a folder belongs, or a folder where a file belongs: remove it, or use another folder"
            )
        case EMFILE, ENFILE:
            (.io, "Too many open files: close stores not in use, or raise the limit (`ulimit -n`)")
        case EXDEV:
            (.io, "The two folders are on different volumes: keep them on one")
        case EFBIG:
            (.io, "The file is larger than Strata ever writes there: it is not the store's; remove it")
        case ENAMETOOLONG:
            (.invalidArgument, "The path is too long: use a folder with a shorter path")
        case EINVAL where call == "name":
            (.invalidArgument, "A store name is one path component: no `/`, `..` or NUL")
        case EIO:
            (.io, "The device reported an error: check the disk")
        default:
            (.io, nil)
        }
    }
}
