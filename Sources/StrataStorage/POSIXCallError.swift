import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: which call, on which path, and the `errno` it set.
///
/// The store modules turn it into a ``Strata/StrataError`` with ``strataError(_:)``; the predicates tell the
/// outcomes a store handles itself (a missing name, a link where a file belongs, a folder where a file belongs).
package struct POSIXCallError: Error, CustomStringConvertible, Sendable {
    /// The system call, e.g. `openat`.
    package let call: String
    /// The path it was about, relative to the store's folder where the call was.
    package let path: String
    /// The `errno` it set.
    package let code: Int32

    package init(call: String, path: String, code: Int32) {
        self.call = call
        self.path = path
        self.code = code
    }

    /// The error for the current `errno`.
    package static func last(_ call: String, _ path: String) -> POSIXCallError {
        POSIXCallError(call: call, path: path, code: errno)
    }

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

    /// The name exists already (an exclusive create).
    package var alreadyExists: Bool { code == EEXIST }

    /// The error a store reports for this failure: ``Strata/StrataError/Code/io`` with the call, the path and
    /// the system's words, the POSIX error as its cause.
    package func strataError(_ action: String) -> StrataError {
        let cause = POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        return StrataError(.io, "\(action): \(description)", underlying: cause)
    }
}
