#if Postgres
    import Foundation
    import Strata
    import StrataTestSupport

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// A TCP proxy on 127.0.0.1 in front of a PostgreSQL server that passes every byte through, except that while
    /// ``stallsListen`` is on, a connection whose client sends `LISTEN` is stalled: the `LISTEN` never reaches the
    /// server, nothing more is passed either way, and the connection stays open until the client closes it — a
    /// server that accepted the connection, answered `SELECT 1`, and then never acknowledged `LISTEN`.
    ///
    /// Blocking POSIX sockets on dedicated threads (one to accept, two per connection), never the cooperative pool.
    /// ``stop()`` shuts every socket down, which wakes blocked threads.
    final class ListenStallingProxy: Sendable {
        private struct State {
            var isStopped = false
            var acceptEnded = false
            var stallsListen = true
            var sockets: Set<Int32> = []
            var listensStalled = 0
            var stalledClosedByClient = 0
        }

        private let listener: Int32
        private let upstreamPort: UInt16
        private let state = Locked(State())

        /// The port clients connect to.
        let port: Int

        /// How many `LISTEN`s the proxy held back so far.
        var listensStalled: Int { state.withLock { $0.listensStalled } }

        /// How many stalled connections their client closed so far (it gave up waiting for `LISTEN`).
        var stalledClosedByClient: Int { state.withLock { $0.stalledClosedByClient } }

        /// Whether a connection that sends `LISTEN` from now on is stalled; one already stalled stays so.
        var stallsListen: Bool {
            get { state.withLock { $0.stallsListen } }
            set { state.withLock { $0.stallsListen = newValue } }
        }

        private init(listener: Int32, port: UInt16, upstreamPort: UInt16) {
            self.listener = listener
            self.port = Int(port)
            self.upstreamPort = upstreamPort
        }

        /// Starts a proxy to the server listening on `upstreamPort` of 127.0.0.1.
        static func start(upstreamPort: Int) throws -> ListenStallingProxy {
            let (listener, port) = try RefusingPort.bindLoopback(reuseAddress: true)
            guard listen(listener, 64) == 0, let upstream = UInt16(exactly: upstreamPort) else {
                close(listener)
                throw POSIXError(errnoCode: errno)
            }
            let proxy = ListenStallingProxy(listener: listener, port: port, upstreamPort: upstream)
            let thread = Thread { proxy.acceptLoop() }
            thread.name = "ListenStallingProxy.accept"
            thread.start()
            return proxy
        }

        /// Stops accepting connections and shuts every open socket down.
        func stop() {
            state.withLock { state in
                guard !state.isStopped else { return }
                state.isStopped = true
                if state.acceptEnded {
                    close(listener)
                } else {
                    _ = shutdown(listener, Int32(SHUT_RDWR))
                }
                for socket in state.sockets { _ = shutdown(socket, Int32(SHUT_RDWR)) }
            }
        }

        private func acceptLoop() {
            defer {
                state.withLock { state in
                    state.acceptEnded = true
                    if state.isStopped { close(listener) }
                }
            }
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                guard let server = connectUpstream() else {
                    close(client)
                    continue
                }
                let admitted = state.withLock { state -> Bool in
                    guard !state.isStopped else { return false }
                    state.sockets.formUnion([client, server])
                    return true
                }
                guard admitted else {
                    close(client)
                    close(server)
                    return
                }
                let done = Locked(0)
                let finish: @Sendable () -> Void = {
                    // The second pump to end closes both sockets.
                    let isLast = done.withLock { count in
                        count += 1
                        return count == 2
                    }
                    guard isLast else { return }
                    self.state.withLock { state in
                        state.sockets.subtract([client, server])
                        close(client)
                        close(server)
                    }
                }
                let upward = Thread {
                    self.pumpFromClient(client, to: server)
                    finish()
                }
                let downward = Thread {
                    Self.pump(from: server, to: client)
                    _ = shutdown(client, Int32(SHUT_RDWR))
                    finish()
                }
                upward.start()
                downward.start()
            }
        }

        /// A socket connected to the server, or `nil`.
        private func connectUpstream() -> Int32? {
            #if canImport(Glibc)
                let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                let server = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard server >= 0 else { return nil }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = upstreamPort.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    connect(server, address, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                close(server)
                return nil
            }
            return server
        }

        /// Passes the client's bytes to the server until one of them goes, or, while ``stallsListen`` is on, until
        /// the client sends `LISTEN`: from then on it only waits for the client to close.
        private func pumpFromClient(_ client: Int32, to server: Int32) {
            let listen = Array("LISTEN".utf8)
            var tail: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while let count = Self.receive(client, into: &buffer) {
                let seen = tail + buffer[..<count]
                if state.withLock({ $0.stallsListen }) && seen.contains(listen) {
                    state.withLock { $0.listensStalled += 1 }
                    while Self.receive(client, into: &buffer) != nil {}
                    state.withLock { state in
                        if !state.isStopped { state.stalledClosedByClient += 1 }
                    }
                    _ = shutdown(server, Int32(SHUT_RDWR))
                    return
                }
                tail = Array(seen.suffix(listen.count - 1))
                guard Self.forward(buffer[..<count], to: server) else { break }
            }
            _ = shutdown(server, Int32(SHUT_RDWR))
        }

        /// Passes bytes from `source` to `destination` until one of them goes.
        private static func pump(from source: Int32, to destination: Int32) {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while let count = receive(source, into: &buffer) {
                guard forward(buffer[..<count], to: destination) else { return }
            }
        }

        /// Reads what is there (at least a byte); `nil` once the peer closed or the socket failed.
        private static func receive(_ socket: Int32, into buffer: inout [UInt8]) -> Int? {
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                return count > 0 ? count : nil
            }
        }

        /// Writes all of `bytes`; `false` once the peer is gone.
        private static func forward(_ bytes: ArraySlice<UInt8>, to socket: Int32) -> Bool {
            bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return true }
                var offset = 0
                while offset < buffer.count {
                    let count = send(socket, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { return false }
                    offset += count
                }
                return true
            }
        }
    }

    extension Array where Element == UInt8 {
        /// Whether `needle` occurs in the bytes.
        fileprivate func contains(_ needle: [UInt8]) -> Bool {
            guard count >= needle.count else { return false }
            return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
        }
    }
#endif
