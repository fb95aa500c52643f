import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP listener on 127.0.0.1 that serves each connection on a dedicated thread of its own: the socket lifecycle
/// every hand-written test server shares (an HTTP server that writes any bytes, a proxy that holds a message back).
///
/// Blocking POSIX sockets on dedicated threads, never the cooperative pool: a peer that stops reading blocks only its
/// connection's thread, and a busy pool cannot stop the server from answering. ``stop()`` shuts every socket down,
/// which wakes blocked threads. A socket is closed only by the one that sees it last, and only after it has left
/// the set ``stop()`` shuts down, so no descriptor number is shut down after being reused.
package final class LoopbackListener: Sendable {
    private struct State {
        var isStopped = false
        var acceptEnded = false
        var sockets: Set<Int32> = []
    }

    private let listener: Int32
    private let state = Locked(State())

    /// The port clients connect to.
    package let port: UInt16

    private init(listener: Int32, port: UInt16) {
        self.listener = listener
        self.port = port
    }

    /// Starts listening; `serve` runs once per connection, on a thread of its own named `"<name>.connection"`,
    /// and the connection is closed when it returns.
    ///
    /// - Parameters:
    ///   - name: The threads' name prefix, as a debugger shows it.
    ///   - serve: What a connection does, given its socket and the listener (to ``adopt(_:)`` other sockets).
    package static func start(
        name: String,
        serve: @escaping @Sendable (_ connection: Int32, _ listener: LoopbackListener) -> Void
    ) throws -> LoopbackListener {
        let (socket, port) = try RefusingPort.bindLoopback(reuseAddress: true)
        guard listen(socket, 64) == 0 else {
            let error = POSIXError(errnoCode: errno)
            close(socket)
            throw error
        }
        let listener = LoopbackListener(listener: socket, port: port)
        let thread = Thread { listener.acceptLoop(name: name, serve: serve) }
        thread.name = "\(name).accept"
        thread.start()
        return listener
    }

    /// Stops accepting connections and shuts down every open socket, waking any blocked thread.
    package func stop() {
        // `shutdown` wakes a thread blocked in `accept`, `recv` or `send`; closing is left to the socket's owner.
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

    /// Puts a socket a connection opened (a proxy's upstream) under ``stop()``; `false` once stopped, when the
    /// caller closes it. Give it back with ``release(_:)``.
    package func adopt(_ socket: Int32) -> Bool {
        state.withLock { state in
            guard !state.isStopped else { return false }
            state.sockets.insert(socket)
            return true
        }
    }

    /// Takes a socket out of ``stop()``'s reach and closes it.
    package func release(_ socket: Int32) {
        state.withLock { _ = $0.sockets.remove(socket) }
        close(socket)
    }

    private func acceptLoop(name: String, serve: @escaping @Sendable (Int32, LoopbackListener) -> Void) {
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
            guard adopt(connection) else {
                close(connection)
                return
            }
            let thread = Thread {
                serve(connection, self)
                self.release(connection)
            }
            thread.name = "\(name).connection"
            thread.start()
        }
    }
}

extension LoopbackListener {
    /// Reads what is there (at least a byte); `nil` once the peer closed or the socket failed.
    package static func receive(_ socket: Int32, into buffer: inout [UInt8]) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? count : nil
        }
    }

    /// Writes all of `bytes`, blocking while the peer does not read.
    ///
    /// - Throws: `POSIXError` once the peer is gone.
    package static func send(_ bytes: UnsafeRawBufferPointer, to socket: Int32) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
                let count = Glibc.send(socket, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            #else
                let count = Darwin.send(socket, base + offset, bytes.count - offset, 0)
            #endif
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw POSIXError(errnoCode: errno) }
            offset += count
        }
    }
}
