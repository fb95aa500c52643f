import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The listening socket of a loopback server that does not hand it out (FlyingFox keeps its own).
enum ListeningSocket {
    /// Turns Nagle's algorithm off on the socket listening on `port` of this process, so the connections it
    /// accepts send small writes at once (Linux and Darwin copy `TCP_NODELAY` into accepted sockets).
    ///
    /// FlyingFox writes a response's head and its body in two writes. With Nagle's algorithm on, the body waits
    /// for the client to acknowledge the head, and a client that delays its acknowledgements (40 ms on Linux)
    /// makes every response with a body take that long: about 44 ms per `PUT` through URLSession, where the
    /// server needs well under one. Real servers send a response at once; the tests' server should too.
    ///
    /// - Parameter port: The port the server listens on.
    /// - Returns: Whether a listening socket on `port` was found and changed.
    @discardableResult
    static func disableNagle(port: UInt16) -> Bool {
        var found = false
        for descriptor in Int32(0)..<Int32(4096) where isListener(descriptor, port: port) {
            var on: Int32 = 1
            found =
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
                || found
        }
        return found
    }

    /// Whether `descriptor` is an IPv4 TCP socket listening on `port`.
    private static func isListener(_ descriptor: Int32, port: UInt16) -> Bool {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0, Int32(address.sin_family) == AF_INET, UInt16(bigEndian: address.sin_port) == port else {
            return false
        }
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0 && listening != 0
    }
}
