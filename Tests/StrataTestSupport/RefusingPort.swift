import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A port on 127.0.0.1 that refuses every connection for as long as the value is held.
///
/// The port is bound but never listened on, so a connection to it is answered with a reset (`ECONNREFUSED`), and no
/// other socket — a server a test running beside this one starts — can be given the same port meanwhile. A port that
/// was merely released (or a server that was stopped) can be taken by the next server, and a connection then meets
/// whatever that server does.
package final class RefusingPort: Sendable {
    private let descriptor: Int32

    /// The bound port.
    package let port: UInt16

    /// `http://127.0.0.1:<port>`.
    package var baseURL: URL {
        // A literal address and a port always form a URL.
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Binds a fresh loopback port.
    package init() throws {
        let (descriptor, port) = try Self.bindLoopback()
        self.descriptor = descriptor
        self.port = port
    }

    deinit { close(descriptor) }

    /// Binds a TCP socket to 127.0.0.1 on a port the system picks, and returns the socket and the port.
    package static func bindLoopback(reuseAddress: Bool = false) throws -> (socket: Int32, port: UInt16) {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(errnoCode: errno) }
        if reuseAddress {
            var reuse: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let error = POSIXError(errnoCode: errno)
            close(descriptor)
            throw error
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }
}

extension POSIXError {
    /// The error an `errno` value names (`EIO` for a value POSIXError does not know).
    package init(errnoCode code: Int32) {
        self.init(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
}
