import Foundation
import Strata
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP server on 127.0.0.1 that reads a request head and lets the test write any bytes back — a
/// truncated body, an endless chunked body — then closes the connection. It keeps every request head it
/// read, for tests that check what reached the wire.
///
/// It uses blocking POSIX sockets on dedicated threads (one to accept, one per connection), never the
/// cooperative pool: a client that stops reading simply blocks the connection's thread, and a busy pool
/// cannot stop the server from answering. ``stop()`` shuts every socket down, which wakes blocked threads.
final class RawServer: Sendable {
    /// A blocking write of bytes to the connection; throws once the client has gone.
    typealias Write = (Data) throws -> Void

    /// Thrown by a response to end its connection with a reset (`SO_LINGER` 0, so the close sends `RST`)
    /// instead of an orderly close.
    struct ResetConnection: Error {}

    private let listener: Int32
    private let state = Locked(State())

    /// `http://127.0.0.1:<port>`.
    let baseURL: URL

    private struct State {
        var isStopped = false
        var acceptEnded = false
        var connections: Set<Int32> = []
        var heads: [String] = []
    }

    /// The request heads read so far, as text (invalid UTF-8 replaced), in order.
    var requestHeads: [String] { state.withLock { $0.heads } }

    private init(listener: Int32, baseURL: URL) {
        self.listener = listener
        self.baseURL = baseURL
    }

    /// Starts a server; `respond` runs once per connection, on that connection's thread, with a blocking
    /// function that writes bytes.
    static func start(respond: @escaping @Sendable (_ write: Write) throws -> Void) throws -> RawServer {
        let (listener, port) = try RefusingPort.bindLoopback(reuseAddress: true)
        guard listen(listener, 64) == 0 else {
            close(listener)
            throw POSIXError(errnoCode: errno)
        }
        guard let baseURL = URL(string: "http://127.0.0.1:\(port)") else {
            close(listener)
            throw CocoaError(.featureUnsupported)
        }
        let server = RawServer(listener: listener, baseURL: baseURL)
        let thread = Thread { server.acceptLoop(respond: respond) }
        thread.name = "RawServer.accept"
        thread.start()
        return server
    }

    /// Stops accepting connections and shuts down every open connection, waking any blocked thread.
    func stop() {
        // `shutdown` wakes a thread blocked in `accept`, `recv` or `send`. A socket is closed by the one that
        // sees it last, and only under the lock, so no descriptor number is shut down after being reused.
        state.withLock { state in
            guard !state.isStopped else { return }
            state.isStopped = true
            if state.acceptEnded {
                close(listener)
            } else {
                _ = shutdown(listener, Int32(SHUT_RDWR))
            }
            for connection in state.connections { _ = shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop(respond: @escaping @Sendable (Write) throws -> Void) {
        defer {
            state.withLock { state in
                state.acceptEnded = true
                if state.isStopped { close(listener) }
            }
        }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.isStopped else { return false }
                state.connections.insert(connection)
                return true
            }
            guard admitted else {
                close(connection)
                return
            }
            let thread = Thread { self.serve(connection, respond: respond) }
            thread.name = "RawServer.connection"
            thread.start()
        }
    }

    private func serve(_ connection: Int32, respond: (Write) throws -> Void) {
        defer {
            state.withLock { _ = $0.connections.remove(connection) }
            close(connection)
        }
        guard let head = Self.readHead(connection) else { return }
        state.withLock { $0.heads.append(String(decoding: head, as: UTF8.self)) }
        do {
            try respond { data in try Self.writeAll(data, to: connection) }
        } catch is ResetConnection {
            var option = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(connection, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        } catch {
            // The client went away: the connection closes normally.
        }
    }

    /// Reads up to the blank line that ends a request head (at most 64 KiB); `nil` when the client went away
    /// first.
    private static func readHead(_ connection: Int32) -> [UInt8]? {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.ends(with: [13, 10, 13, 10]) && head.count <= 65_536 {
            let count = recv(connection, &byte, 1, 0)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return nil }
            head.append(byte)
        }
        return head
    }

    private static func writeAll(_ data: Data, to connection: Int32) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let count = send(connection, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw POSIXError(errnoCode: errno) }
                offset += count
            }
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

/// A latch a ``RawServer`` connection thread blocks on until the test opens it.
final class ThreadLatch: Sendable {
    private let condition = NSCondition()
    private let opened = Locked(false)

    /// Blocks the calling thread (a server thread, never a task) until ``open()``.
    func wait() {
        condition.lock()
        defer { condition.unlock() }
        while !opened.withLock({ $0 }) { condition.wait() }
    }

    /// Blocks the calling thread until ``open()`` or `deadline`; whether it was opened.
    @discardableResult
    func wait(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !opened.withLock({ $0 }) {
            if !condition.wait(until: deadline) { return opened.withLock { $0 } }
        }
        return true
    }

    /// Whether ``open()`` has run.
    var isOpen: Bool { opened.withLock { $0 } }

    /// Releases every waiter, now and later.
    func open() {
        condition.lock()
        defer { condition.unlock() }
        opened.withLock { $0 = true }
        condition.broadcast()
    }
}

/// Counts bytes across tasks.
final class ByteCounter: Sendable {
    private let value = Locked<Int>(0)

    /// Adds `count`.
    func add(_ count: Int) { value.withLock { $0 += count } }

    /// The total so far.
    var total: Int { value.withLock { $0 } }
}
