import Foundation
import LoopbackServer
import Strata
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RawServer {
    /// What a server started by ``sendingUntilClosed()`` tells the test.
    struct LongBody: Sendable {
        let server: RawServer
        /// Opened once the response's head is written.
        let headSent: Gate
        /// Opened once the response has ended, sent whole or cut by the client.
        let ended: Gate
        private let closed: Locked<Bool>

        /// Whether the client closed the connection before the body was sent whole.
        var closedByClient: Bool { closed.withLock { $0 } }

        init(server: RawServer, headSent: Gate, ended: Gate, closed: Locked<Bool>) {
            (self.server, self.headSent, self.ended, self.closed) = (server, headSent, ended, closed)
        }
    }

    /// Starts a server that sends the head of a 64 MiB body, then the body at about 6 MB/s, for as long as the
    /// connection lasts: the test tells a connection the client closed from one left open.
    static func sendingUntilClosed() throws -> LongBody {
        let headSent = Gate()
        let ended = Gate()
        let closed = Locked(false)
        let server = try RawServer.start { write in
            defer { ended.open() }
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 67108864\r\n\r\n".utf8))
            headSent.open()
            do {
                for _ in 0..<1_024 {
                    try write(Data(repeating: 1, count: 65_536))
                    usleep(10_000)
                }
            } catch {
                closed.withLock { $0 = true }
            }
        }
        return LongBody(server: server, headSent: headSent, ended: ended, closed: closed)
    }
}
