import Foundation
import Strata
import Testing

@testable import StrataStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one errno table: which code each failure becomes and what its message tells the user to do.
struct POSIXCallErrorTests {
    @Test(arguments: [
        (ENOSPC, "disk is full"), (EDQUOT, "quota"), (EACCES, "Permission denied"), (EPERM, "Permission denied"),
        (EROFS, "read-only"), (ELOOP, "symbolic link"), (EMFILE, "Too many open files"),
        (ENFILE, "Too many open files"), (ENOTDIR, "a file is where a folder belongs"), (EEXIST, "already"),
        (ENOENT, "removed or moved"),
    ])
    func aFileSystemFailureIsAnIOErrorThatSaysWhatToDo(code: Int32, advice: String) {
        let error = POSIXCallError(call: "openat", path: "/store/x", code: code).strataError("Writing an entry")
        #expect(error.code == .io)
        #expect(error.message.localizedCaseInsensitiveContains(advice), "\(error.message)")
        #expect(error.message.hasPrefix("Writing an entry: openat(/store/x) failed: "))
        #expect(error.message.contains("(errno \(code))"))
        #expect(!error.message.contains("\n"))
        #expect((error.underlying as? POSIXError)?.code.rawValue == code)
    }

    @Test func aPathOrNameThatCannotBeOneIsAnInvalidArgument() {
        let tooLong = POSIXCallError(call: "open", path: "/long", code: ENAMETOOLONG).strataError("Opening")
        #expect(tooLong.code == .invalidArgument)
        let name = POSIXCallError(call: "name", path: "a/b", code: EINVAL).strataError("Writing")
        #expect(name.code == .invalidArgument)
        #expect(POSIXCallError(call: "fcntl", path: "/x", code: EINVAL).strataError("Locking").code == .io)
    }

    @Test func anUnlistedErrnoIsAPlainIOError() {
        let error = POSIXCallError(call: "read", path: "/x", code: ESPIPE).strataError("Reading")
        #expect(error.code == .io)
        #expect(error.message.hasSuffix("(errno \(ESPIPE))"))
    }
}
