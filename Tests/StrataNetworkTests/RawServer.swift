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
/// Each connection is served on a dedicated thread of a ``LoopbackListener``, never the cooperative pool: a
/// client that stops reading simply blocks the connection's thread. ``stop()`` wakes blocked threads.
final class RawServer: Sendable {
    /// A blocking write of bytes to the connection; throws once the client has gone.
    typealias Write = (Data) throws -> Void

    /// Thrown by a response to end its connection with a reset (`SO_LINGER` 0, so the close sends `RST`)
    /// instead of an orderly close.
    struct ResetConnection: Error {}

    private let listener: LoopbackListener
    private let heads: Locked<[String]>
    private let connections: Locked<Int>

    /// `http://127.0.0.1:<port>`.
    let baseURL: URL

    /// The request heads read so far, as text (invalid UTF-8 replaced), in order.
    var requestHeads: [String] { heads.withLock { $0 } }

    /// The connections accepted so far.
    var connectionCount: Int { connections.withLock { $0 } }

    private init(listener: LoopbackListener, heads: Locked<[String]>, connections: Locked<Int>, baseURL: URL) {
        self.listener = listener
        self.heads = heads
        self.connections = connections
        self.baseURL = baseURL
    }

    /// Starts a server; `respond` runs once per connection (once per request with `keepingAlive`: the connection
    /// then stays open for the next request until the client closes it), on that connection's thread, with a
    /// blocking function that writes bytes.
    static func start(
        keepingAlive: Bool = false,
        respond: @escaping @Sendable (_ write: Write) throws -> Void
    ) throws -> RawServer {
        try start(keepingAlive: keepingAlive) { _, write in try respond(write) }
    }

    /// Starts a server as ``start(keepingAlive:respond:)`` does, whose `respond` is also given the request head it
    /// answers, as text.
    static func start(
        keepingAlive: Bool = false,
        answering respond: @escaping @Sendable (_ head: String, _ write: Write) throws -> Void
    ) throws -> RawServer {
        let heads = Locked<[String]>([])
        let connections = Locked(0)
        let listener = try LoopbackListener.start(name: "RawServer") { connection, _ in
            connections.withLock { $0 += 1 }
            while serve(connection, heads: heads, respond: respond), keepingAlive {}
        }
        guard let baseURL = URL(string: "http://127.0.0.1:\(listener.port)") else {
            listener.stop()
            throw CocoaError(.featureUnsupported)
        }
        return RawServer(listener: listener, heads: heads, connections: connections, baseURL: baseURL)
    }

    /// Stops accepting connections and shuts down every open connection, waking any blocked thread.
    func stop() { listener.stop() }

    /// Reads one request head and responds; whether the connection can take another request.
    private static func serve(
        _ connection: Int32,
        heads: Locked<[String]>,
        respond: (String, Write) throws -> Void
    ) -> Bool {
        guard let head = readHead(connection) else { return false }
        let text = String(decoding: head, as: UTF8.self)
        heads.withLock { $0.append(text) }
        do {
            try respond(text) { data in
                try data.withUnsafeBytes { try LoopbackListener.send($0, to: connection) }
            }
            return true
        } catch is ResetConnection {
            var option = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(connection, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        } catch {
            // The client went away: the connection closes normally.
        }
        return false
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

extension RawServer {
    /// A server that answers every request `200` with `bodySize` bytes of 1, then closes the connection.
    static func answering(bodySize: Int) throws -> RawServer {
        try start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: \(bodySize)\r\nConnection: close\r\n\r\n".utf8))
            try write(Data(repeating: 1, count: bodySize))
        }
    }

    /// A server that answers `503` with a chunked body of 1 KiB of `a` every 20 ms, 3,000 chunks (a minute) at
    /// most, counting the chunks it wrote in `written`: an error body that does not end while anyone waits.
    /// `extraHeaders` (whole lines, each ending in CRLF) go before `Transfer-Encoding`.
    static func endlessErrorBody(counting written: Locked<Int>, extraHeaders: String = "") throws -> RawServer {
        try start { write in
            let head = "HTTP/1.1 503 Service Unavailable\r\n\(extraHeaders)Transfer-Encoding: chunked\r\n\r\n"
            try write(Data(head.utf8))
            let chunk = Data("400\r\n".utf8) + Data(repeating: 0x61, count: 1_024) + Data("\r\n".utf8)
            for _ in 0..<3_000 {
                try write(chunk)
                written.withLock { $0 += 1 }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }
}
