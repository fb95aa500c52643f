import FlyingSocks

/// The one socket pool every loopback server in a process shares.
///
/// A FlyingFox server's own pool keeps a libdispatch worker blocked in `epoll_wait` for as long as the server
/// runs, and libdispatch has about 255 workers: a test run with that many servers alive at once (Swift Testing runs
/// tests in parallel) leaves none for URLSession, whose requests then never finish, so the servers are never stopped.
/// Sharing one pool keeps one worker blocked, however many servers run.
struct SharedSocketPool: AsyncSocketPool {
    /// Starts the shared pool, once per process.
    func prepare() async throws {
        _ = try await SharedSocketPoolLoader.shared.pool()
    }

    /// Lasts until the server that runs it is cancelled: the shared pool runs on its own.
    func run() async throws {
        while true { try await Task.sleep(for: .seconds(86_400)) }
    }

    /// Waits, in the shared pool, until `socket` is ready for `events`.
    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        try await SharedSocketPoolLoader.shared.pool().suspendSocket(socket, untilReadyFor: events)
    }
}

/// Makes and starts the shared pool the first time a server asks for it.
private actor SharedSocketPoolLoader {
    static let shared = SharedSocketPoolLoader()

    private let shared: some AsyncSocketPool = SocketPool.make()
    /// The pool's start, made once: callers that arrive while it is under way wait for it rather than prepare the
    /// pool again (an actor is reentrant across the `await`).
    private var start: Task<Void, any Error>?

    func pool() async throws -> some AsyncSocketPool {
        let pool = shared
        if start == nil {
            start = Task {
                try await pool.prepare()
                Task { try await pool.run() }
            }
        }
        try await start?.value
        return pool
    }
}
