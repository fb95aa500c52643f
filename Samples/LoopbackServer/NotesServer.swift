import Foundation
import Strata

/// A notes API on the loopback server for the offline-write tests, sample and crash harness: `GET`, `PUT` and
/// `DELETE /notes/<key>`, a switch that makes it answer 503 (down), one that makes it answer 503 to writes only,
/// scripted 409 conflicts, a count of the writes that arrived, and a log of every write it applied.
///
/// Each note has a revision, moved by every write and by ``setNote(_:forKey:)``: a read answers it as the `ETag`
/// `"r<n>"`, and a write with an `If-Match` header that names another revision is answered 412.
///
/// Writes are idempotent by their `Idempotency-Key` header: a write whose key the server already applied is
/// answered as before and not applied again (``duplicateCount`` counts those). ``applied`` lists each applied
/// write once, so a test can prove every write arrived exactly once and in order.
public final class NotesServer: Sendable {
    /// One write the server applied.
    public struct AppliedWrite: Sendable, Hashable {
        /// `PUT` or `DELETE`.
        public var method: String
        /// The note's key.
        public var key: String
        /// The `Idempotency-Key` header, if the write had one.
        public var idempotencyKey: String?
        /// The `If-Match` header, if the write had one.
        public var ifMatch: String?
        /// The body of a put.
        public var body: Data
    }

    /// What the server holds and how it answers.
    private struct State {
        /// The notes, by key.
        var notes: [String: Data] = [:]
        /// The revision of each key, moved by each write.
        var revisions: [String: Int] = [:]
        /// Whether every request is answered 503.
        var isDown = false
        /// Whether every write is answered 503 (reads are answered).
        var failsWrites = false
        /// Whether every read is answered 503 (writes are answered).
        var failsReads = false
        /// Every write that arrived, answered or not.
        var writeRequests = 0
        /// How many more writes of each key are answered 409.
        var conflicts: [String: Int] = [:]
        /// The idempotency keys applied, with the index of their write in ``applied``.
        var seenKeys: [String: Int] = [:]
        /// Every write applied, in order.
        var applied: [AppliedWrite] = []
        /// Writes that came again with an applied idempotency key.
        var duplicates = 0
        /// The gates of the next write: opened when it arrives, waited on before it is answered.
        var hold: (arrived: Gate, release: Gate)?
    }

    /// The server's state.
    private let state = Locked(State())

    /// The running server.
    private let running = Locked<LoopbackServer?>(nil)

    /// Creates a server's state; ``start()`` runs it.
    private init() {}

    /// Starts a server.
    public static func start() async throws -> NotesServer {
        let notes = NotesServer()
        let server = try await LoopbackServer.start([
            ("GET /notes/*", { request in notes.get(request) }),
            ("PUT /notes/*", { request in await notes.write(request) }),
            ("DELETE /notes/*", { request in await notes.write(request) }),
        ])
        notes.running.withLock { $0 = server }
        return notes
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { running.withLock { $0?.baseURL } ?? URL(fileURLWithPath: "/") }

    /// Stops the server.
    public func stop() async { await running.withLock { $0 }?.stop() }

    /// Whether every request is answered 503 (the server is "down").
    public var isDown: Bool {
        get { state.withLock { $0.isDown } }
        set { state.withLock { $0.isDown = newValue } }
    }

    /// Whether every write is answered 503 while reads are answered: a server that is up but cannot take writes.
    public var failsWrites: Bool {
        get { state.withLock { $0.failsWrites } }
        set { state.withLock { $0.failsWrites = newValue } }
    }

    /// Whether every read is answered 503 while writes are answered: a server whose reads fail for a while.
    public var failsReads: Bool {
        get { state.withLock { $0.failsReads } }
        set { state.withLock { $0.failsReads = newValue } }
    }

    /// How many writes (`PUT`, `DELETE`) arrived, whatever they were answered.
    public var writeRequestCount: Int { state.withLock { $0.writeRequests } }

    /// Makes the next `times` writes of `key` answer 409 Conflict.
    public func scriptConflict(key: String, times: Int = 1) {
        state.withLock { $0.conflicts[key] = times }
    }

    /// Sets a note directly, as another client would.
    public func setNote(_ body: Data, forKey key: String) {
        state.withLock { state in
            state.notes[key] = body
            state.revisions[key, default: 0] += 1
        }
    }

    /// The `ETag` of `key`'s revision now, such as `"r2"`.
    public func eTag(forKey key: String) -> String { state.withLock { Self.eTag($0.revisions[key, default: 0]) } }

    /// The `ETag` of a revision.
    private static func eTag(_ revision: Int) -> String { "\"r\(revision)\"" }

    /// The stored note of `key`.
    public func note(forKey key: String) -> Data? { state.withLock { $0.notes[key] } }

    /// Every write applied, in order.
    public var applied: [AppliedWrite] { state.withLock { $0.applied } }

    /// Holds the next write on its way: when it arrives the server opens `arrived`, then waits for `release`
    /// before it answers, as the server is then (down or up).
    ///
    /// - Parameters:
    ///   - arrived: Opened when the write arrives.
    ///   - release: Opened by the test to let the write be answered.
    public func holdNextWrite(arrived: Gate, release: Gate) {
        state.withLock { $0.hold = (arrived, release) }
    }

    /// How many writes arrived with an idempotency key already applied (and were not applied again).
    public var duplicateCount: Int { state.withLock { $0.duplicates } }

    /// The note key of a request's path.
    private static func key(_ request: ServerRequest) -> String {
        String(request.path.dropFirst("/notes/".count))
    }

    /// Answers a read: 503 when down or failing reads, the note, or 404.
    private func get(_ request: ServerRequest) -> ServerReply {
        state.withLock { state in
            if state.isDown || state.failsReads { return ServerReply(status: 503) }
            let key = Self.key(request)
            guard let body = state.notes[key] else { return ServerReply(status: 404) }
            let eTag = Self.eTag(state.revisions[key, default: 0])
            return ServerReply(status: 200, headers: ["Content-Type": "application/json", "ETag": eTag], body: body)
        }
    }

    /// Answers a put or a delete (after a hold, when one is set): 503 when down or failing writes, the earlier
    /// answer for an applied idempotency key, a scripted 409, 412 for an `If-Match` of another revision, or
    /// applies it.
    private func write(_ request: ServerRequest) async -> ServerReply {
        let hold = state.withLock { state in
            defer { state.hold = nil }
            return state.hold
        }
        if let hold {
            hold.arrived.open()
            await hold.release.wait()
        }
        let key = Self.key(request)
        let idempotencyKey = request.headers["idempotency-key"]
        return state.withLock { state in
            state.writeRequests += 1
            if state.isDown || state.failsWrites { return ServerReply(status: 503) }
            if let idempotencyKey, state.seenKeys[idempotencyKey] != nil {
                state.duplicates += 1
                return ServerReply(status: request.method == "PUT" ? 200 : 204, body: request.body)
            }
            if let remaining = state.conflicts[key], remaining > 0 {
                state.conflicts[key] = remaining - 1
                return ServerReply(status: 409)
            }
            let ifMatch = request.headers["if-match"]
            if let ifMatch, ifMatch != Self.eTag(state.revisions[key, default: 0]) { return ServerReply(status: 412) }
            if let idempotencyKey { state.seenKeys[idempotencyKey] = state.applied.count }
            state.revisions[key, default: 0] += 1
            state.applied.append(
                AppliedWrite(
                    method: request.method,
                    key: key,
                    idempotencyKey: idempotencyKey,
                    ifMatch: ifMatch,
                    body: request.body
                )
            )
            if request.method == "PUT" {
                state.notes[key] = request.body
                return ServerReply(status: 200, body: request.body)
            }
            state.notes[key] = nil
            return ServerReply(status: 204)
        }
    }
}
