import Foundation
import Strata

/// A failed system call: which call, on which path, and the `errno` it set.
///
/// The one POSIX error of the package: every store module, `FileCacheProvider` and the `strata` tool make their
/// system calls through ``StoreFolder`` and ``FileDescriptor`` and turn a failure into a ``Strata/StrataError``
/// with ``strataError(_:)``, whose one errno table picks the code and says what to do. The predicates tell the
/// outcomes a store handles itself (a missing name, a link where a file belongs, a folder where a file belongs).
package struct POSIXCallError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The system call, e.g. `openat`.
    package let call: String
    /// The path it was about, relative to the store's folder where the call was.
    package let path: String
    /// The `errno` it set.
    package let code: Int32

    /// Creates the error of `call` on `path` with `errno` `code`.
    package init(call: String, path: String, code: Int32) {
        self.call = call
        self.path = path
        self.code = code
    }

    /// The error for the current `errno`.
    package static func last(_ call: String, _ path: String) -> POSIXCallError {
        POSIXCallError(call: call, path: path, code: errno)
    }

    /// `call(path) failed: <the system's words> (errno N)`.
    package var description: String {
        "\(call)(\(path)) failed: \(String(cString: strerror(code))) (errno \(code))"
    }

    /// Nothing is at the path.
    package var isNotFound: Bool { code == ENOENT }

    /// A symbolic link is where a file or folder was expected (`O_NOFOLLOW` refused it).
    ///
    /// Linux and Darwin say `ELOOP`; FreeBSD says `EMLINK`.
    package var isLink: Bool { code == ELOOP || code == EMLINK }

    /// Something that is not a folder is where a folder was expected, or the other way round.
    package var isWrongKind: Bool { code == ENOTDIR || code == EISDIR }

    /// A file longer than the caller's limit (``StoreFolder/readFile(_:limit:)`` says `EFBIG`).
    package var isTooLong: Bool { code == EFBIG }

    /// Whether the call failed for want of descriptors (the process's or the system's) or of kernel memory: a
    /// passing shortage, not a fact about the item.
    package var isOutOfResources: Bool { code == EMFILE || code == ENFILE || code == ENOMEM || code == ENOBUFS }

    /// The process may not open or read the item (`EACCES`, `EPERM`): a fact about the item's permissions, not a
    /// passing failure.
    package var isPermissionProblem: Bool { code == EACCES || code == EPERM }

    /// The name exists already (an exclusive create).
    package var alreadyExists: Bool { code == EEXIST }

}
