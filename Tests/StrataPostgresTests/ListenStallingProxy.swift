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
    /// server that accepted the connection, answered `SELECT 1`, and then never acknowledged `LISTEN`. While
    /// ``dropsNotifications`` is on, the server's notifications (`NotificationResponse` messages) are dropped and
    /// everything else passed: a connection that is up while its `LISTEN` hears nothing. A ``ReplyCut`` set as
    /// ``cutsReply`` cuts the reply to the next statement that contains its marker: a connection lost mid-answer.
    ///
    /// Each client is served on a dedicated thread of a ``LoopbackListener`` (its bytes to the server), with one more
    /// for the server's bytes back; ``stop()`` shuts every socket down, which wakes blocked threads.
    final class ListenStallingProxy: Sendable {
        private struct State {
            var isStopping = false
            var stallsListen = true
            var dropsNotifications = false
            var listensStalled = 0
            var stalledClosedByClient = 0
            var cutsReply: ReplyCut?
        }

        /// How the reply to one statement is cut: once a client sends bytes that contain `marker`, its connection's
        /// server messages pass until `passing` bytes of them passed; then, when `closes`, the rest up to the server's
        /// `ReadyForQuery` (the statement done, a write committed) are dropped and the connection is closed both ways;
        /// otherwise every later message is dropped and the connection held open (a reply that stops mid-way).
        struct ReplyCut: Sendable {
            var marker: String
            var passing: Int
            var closes: Bool
        }

        private let state: Locked<State>
        private let listener: LoopbackListener

        /// The port clients connect to.
        var port: Int { Int(listener.port) }

        /// How many `LISTEN`s the proxy held back so far.
        var listensStalled: Int { state.withLock { $0.listensStalled } }

        /// How many stalled connections their client closed so far (it gave up waiting for `LISTEN`).
        var stalledClosedByClient: Int { state.withLock { $0.stalledClosedByClient } }

        /// Whether a connection that sends `LISTEN` from now on is stalled; one already stalled stays so.
        var stallsListen: Bool {
            get { state.withLock { $0.stallsListen } }
            set { state.withLock { $0.stallsListen = newValue } }
        }

        /// Whether the server's notifications are dropped from now on, on every connection.
        var dropsNotifications: Bool {
            get { state.withLock { $0.dropsNotifications } }
            set { state.withLock { $0.dropsNotifications = newValue } }
        }

        /// The cut of the next statement that contains its marker (one statement only: it is then `nil` again).
        var cutsReply: ReplyCut? {
            get { state.withLock { $0.cutsReply } }
            set { state.withLock { $0.cutsReply = newValue } }
        }

        private init(state: Locked<State>, listener: LoopbackListener) {
            self.state = state
            self.listener = listener
        }

        /// Starts a proxy to the server listening on `upstreamPort` of 127.0.0.1.
        static func start(upstreamPort: Int) throws -> ListenStallingProxy {
            guard let upstream = UInt16(exactly: upstreamPort) else { throw POSIXError(.EINVAL) }
            let state = Locked(State())
            let listener = try LoopbackListener.start(name: "ListenStallingProxy") { client, listener in
                guard let server = connectUpstream(port: upstream) else { return }
                guard listener.adopt(server) else {
                    close(server)
                    return
                }
                // The server's bytes back on a thread of their own; this one waits for it before the sockets close.
                let downwardEnded = DispatchSemaphore(value: 0)
                let cut = Locked<ReplyCut?>(nil)
                let downward = Thread {
                    pumpFromServer(server, to: client, state: state, cut: cut)
                    _ = shutdown(client, Int32(SHUT_RDWR))
                    downwardEnded.signal()
                }
                downward.start()
                pumpFromClient(client, to: server, state: state, cut: cut)
                downwardEnded.wait()
                listener.release(server)
            }
            return ListenStallingProxy(state: state, listener: listener)
        }

        /// Stops accepting connections and shuts every open socket down.
        func stop() {
            state.withLock { $0.isStopping = true }
            listener.stop()
        }

        /// A socket connected to 127.0.0.1 on `port`, or `nil`.
        private static func connectUpstream(port: UInt16) -> Int32? {
            #if canImport(Glibc)
                let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                let server = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard server >= 0 else { return nil }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
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
        /// the client sends `LISTEN`: from then on it only waits for the client to close. Shuts the server's socket
        /// down when it ends, which ends the pump the other way. Bytes that contain the marker of ``cutsReply`` make it
        /// this connection's `cut`.
        private static func pumpFromClient(
            _ client: Int32,
            to server: Int32,
            state: Locked<State>,
            cut: Locked<ReplyCut?>
        ) {
            defer { _ = shutdown(server, Int32(SHUT_RDWR)) }
            let listen = Array("LISTEN".utf8)
            var tail: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while let count = LoopbackListener.receive(client, into: &buffer) {
                let seen = tail + buffer[..<count]
                if state.withLock({ $0.stallsListen }) && seen.contains(listen) {
                    state.withLock { $0.listensStalled += 1 }
                    while LoopbackListener.receive(client, into: &buffer) != nil {}
                    state.withLock { state in
                        if !state.isStopping { state.stalledClosedByClient += 1 }
                    }
                    return
                }
                let armed = state.withLock { state -> ReplyCut? in
                    guard let armed = state.cutsReply, seen.contains(Array(armed.marker.utf8)) else { return nil }
                    state.cutsReply = nil
                    return armed
                }
                if let armed { cut.withLock { $0 = armed } }
                tail = Array(seen.suffix(max(listen.count, 64) - 1))
                guard forward(buffer[..<count], to: server) else { return }
            }
        }

        /// Passes the server's messages to the client until one of them goes, one whole message at a time (a type
        /// byte, then a 32-bit length that counts itself and the body), but for notifications (type `A`) while
        /// ``dropsNotifications`` is on, and but for the part of a reply its `cut` drops: it returns when that cut
        /// closes the connection.
        private static func pumpFromServer(
            _ server: Int32,
            to client: Int32,
            state: Locked<State>,
            cut: Locked<ReplyCut?>
        ) {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while let count = LoopbackListener.receive(server, into: &buffer) {
                pending += buffer[..<count]
                var start = 0
                while pending.count - start >= 5 {
                    let length = pending[(start + 1)..<(start + 5)].reduce(0) { $0 << 8 | Int($1) }
                    guard length >= 4, pending.count - start >= 1 + length else { break }
                    let message = pending[start..<(start + 1 + length)]
                    start += 1 + length
                    switch cutting(message, cut) {
                    case .pass: break
                    case .drop: continue
                    case .close: return
                    }
                    let dropped = message.first == UInt8(ascii: "A") && state.withLock { $0.dropsNotifications }
                    guard dropped || forward(message, to: client) else { return }
                }
                pending.removeFirst(start)
            }
        }

        /// What a connection's `cut` does with one server message: passes it while the cut's bytes are not all passed
        /// yet (counting it), then drops it, or closes the connection at the `ReadyForQuery` of a closing cut.
        private static func cutting(_ message: ArraySlice<UInt8>, _ cut: Locked<ReplyCut?>) -> CutStep {
            cut.withLock { cut in
                guard let current = cut else { return .pass }
                if current.passing > 0 {
                    cut?.passing -= message.count
                    return .pass
                }
                return current.closes && message.first == UInt8(ascii: "Z") ? .close : .drop
            }
        }

        /// What ``cutting(_:_:)`` does with a message.
        private enum CutStep {
            case pass
            case drop
            case close
        }

        /// Writes all of `bytes`; `false` once the peer is gone.
        private static func forward(_ bytes: ArraySlice<UInt8>, to socket: Int32) -> Bool {
            (try? bytes.withUnsafeBytes { try LoopbackListener.send($0, to: socket) }) != nil
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
