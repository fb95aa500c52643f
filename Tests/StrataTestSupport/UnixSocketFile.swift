import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A Unix-domain socket bound at a path: the kind of item `open` refuses with `ENXIO` (Linux) or `EOPNOTSUPP`
/// (Darwin), planted where a store keeps a file. Closed (its file stays) when released.
package final class UnixSocketFile {
    private let descriptor: Int32

    /// Whether this platform's tests bind sockets (Linux: the path lengths of its temporary folders fit).
    package static let isAvailable: Bool = {
        #if os(Linux)
            true
        #else
            false
        #endif
    }()

    /// Binds a new socket at `path`: at a short name in the temporary folder, then renamed to `path` (a socket's
    /// address holds at most 108 bytes, less than a test folder's path may take; same file system).
    package init(at path: String) throws {
        let short = FileManager.default.temporaryDirectory
            .appendingPathComponent("s-" + String(UInt32.random(in: .min ... .max), radix: 16)).path
        #if os(Linux)
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let fits = withUnsafeMutableBytes(of: &address.sun_path) { bytes -> Bool in
            guard short.utf8.count < bytes.count else { return false }
            for (offset, byte) in short.utf8.enumerated() { bytes[offset] = byte }
            return true
        }
        let bound =
            fits
            && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            } == 0
        guard bound, rename(short, path) == 0 else {
            let code = fits ? errno : ENAMETOOLONG
            _ = close(descriptor)
            _ = unlink(short)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        self.descriptor = descriptor
    }

    deinit { _ = close(descriptor) }
}
