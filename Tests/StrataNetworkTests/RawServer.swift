import FlyingSocks
import Foundation
import Strata

/// A TCP server on 127.0.0.1 that reads a request head and lets the test write any bytes back — a
/// truncated body, an endless chunked body — then closes the connection.
struct RawServer: Sendable {
    private let listener: AsyncSocket
    private let task: Task<Void, Never>

    /// `http://127.0.0.1:<port>`.
    let baseURL: URL

    /// Starts a server; `respond` runs once per connection with a function that writes bytes.
    static func start(
        respond: @escaping @Sendable (_ write: @Sendable (Data) async throws -> Void) async throws -> Void
    ) async throws -> RawServer {
        let socket = try Socket(domain: AF_INET, type: .stream)
        try socket.setValue(true, for: .localAddressReuse)
        try socket.bind(to: .inet(ip4: "127.0.0.1", port: 0))
        try socket.listen()
        guard case .ip4(_, let port) = try socket.sockname() else { throw CocoaError(.featureUnsupported) }
        let pool: some AsyncSocketPool = try await .client
        let listener = try AsyncSocket(socket: socket, pool: pool)
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                while !Task.isCancelled, let connection = try? await listener.accept() {
                    group.addTask {
                        defer { try? connection.close() }
                        guard (try? await readHead(connection)) != nil else { return }
                        try? await respond { try await connection.write($0) }
                    }
                }
                group.cancelAll()
            }
        }
        return RawServer(listener: listener, task: task, baseURL: URL(string: "http://127.0.0.1:\(port)")!)
    }

    /// Stops accepting connections.
    func stop() {
        try? listener.close()
        task.cancel()
    }

    private static func readHead(_ connection: AsyncSocket) async throws -> String {
        var head: [UInt8] = []
        while !head.ends(with: [13, 10, 13, 10]) {
            head.append(try await connection.read())
            if head.count > 65_536 { break }
        }
        return String(decoding: head, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
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
