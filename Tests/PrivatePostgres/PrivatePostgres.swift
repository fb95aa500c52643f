import Foundation

/// A PostgreSQL server of its own for a test or a sample: `initdb` in a temporary folder, `pg_ctl` on a free
/// loopback port, stopped and removed by ``stop()``. Run as the `postgres` user when the process is root
/// (PostgreSQL refuses to run as root).
public final class PrivatePostgres: Sendable {
    /// The loopback port the server listens on.
    public let port: Int

    /// The user with every right (trust authentication, loopback only).
    public let user = "strata"

    /// The folder holding the data folder and the log.
    public let folder: URL

    private let binaries: URL

    /// The server's settings, given to every start: the port and the loopback address among them, so a server
    /// started again (``resume()``) listens where it did.
    private let settings: String

    /// The folder of `initdb`, `pg_ctl` and `postgres` (the newest installed), or `nil` when PostgreSQL is not
    /// installed: the reason tests that need it are skipped.
    public static var binaries: URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().lazy
            .map { root.appendingPathComponent("\($0)/bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("pg_ctl").path) }
    }

    /// Why tests that need PostgreSQL are skipped here, or `nil` when they can run.
    public static var unavailableReason: String? {
        binaries == nil ? "PostgreSQL's binaries are not installed (apt-get install postgresql)" : nil
    }

    private init(port: Int, folder: URL, binaries: URL, durable: Bool) {
        self.port = port
        self.folder = folder
        self.binaries = binaries
        var settings = "-c listen_addresses=127.0.0.1 -c port=\(port) -c unix_socket_directories=\(folder.path)"
        settings += " -c max_connections=200"
        if !durable { settings += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off" }
        self.settings = settings
    }

    /// Creates a database cluster in a new temporary folder and starts a server on a free loopback port.
    ///
    /// The port is free when chosen, but another socket of the machine can take it before the server binds it: the
    /// server is then made again on another port, up to three times.
    ///
    /// - Parameter durable: Whether commits wait for the disk (`fsync`); off by default, for fast tests.
    public static func start(durable: Bool = false) async throws -> PrivatePostgres {
        var attempt = 1
        while true {
            do {
                return try await startOnce(durable: durable)
            } catch let error as PrivatePostgresError where error.portWasTaken && attempt < 3 {
                attempt += 1
            }
        }
    }

    /// One attempt of ``start(durable:)``.
    private static func startOnce(durable: Bool) async throws -> PrivatePostgres {
        guard let binaries else { throw PrivatePostgresError(message: unavailableReason ?? "") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let server = PrivatePostgres(port: try freePort(), folder: folder, binaries: binaries, durable: durable)
        do {
            try await server.handOver()
            try await server.run(
                "initdb",
                [
                    "-D", server.data, "-U", server.user, "--auth=trust", "-E", "UTF8", "--no-locale",
                    "--no-sync",
                ]
            )
            try await server.resume()
        } catch {
            await server.stop()
            throw error
        }
        return server
    }

    /// Stops the server (fast shutdown: open connections are closed) and keeps its data.
    public func halt() async throws {
        try await run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// Starts the stopped server again, with its data, its settings and its port.
    ///
    /// - Throws: ``PrivatePostgresError`` with the end of the server's log when it did not start.
    public func resume() async throws {
        do {
            try await run("pg_ctl", ["-D", data, "-l", log, "-o", settings, "-w", "-t", "60", "start"])
        } catch let error as PrivatePostgresError {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw PrivatePostgresError(message: "\(error.message)\nThe server's log ends:\n\(text.suffix(2_000))")
        }
    }

    /// Stops the server and removes its folder.
    public func stop() async {
        try? await run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "60", "stop"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs `psql` with one SQL command (as the server's user), for changes made behind a client's back.
    public func psql(_ command: String) async throws {
        try await run(
            "psql",
            [
                "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", "postgres", "-v", "ON_ERROR_STOP=1",
                "-c", command,
            ]
        )
    }

    private var data: String { folder.appendingPathComponent("data").path }
    private var log: String { folder.appendingPathComponent("server.log").path }

    /// Gives the folder to the `postgres` user when running as root.
    private func handOver() async throws {
        guard getuid() == 0 else { return }
        try await Self.launch("/bin/chown", ["postgres:postgres", folder.path], in: folder)
    }

    /// Runs one of PostgreSQL's programs, as the `postgres` user when root, and waits for it.
    private func run(_ program: String, _ arguments: [String]) async throws {
        let path = binaries.appendingPathComponent(program).path
        if getuid() == 0 {
            try await Self.launch("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments, in: folder)
        } else {
            try await Self.launch(path, arguments, in: folder)
        }
    }

    /// Runs a program and waits for it (``launchBlocking(_:_:in:)``) on a thread of its own: `initdb` and `pg_ctl`
    /// take seconds, and a thread of Swift's cooperative pool (two, on a two-core machine) blocked that long stops
    /// every other test's tasks and timers with it.
    private static func launch(_ path: String, _ arguments: [String], in folder: URL) async throws {
        try await withCheckedThrowingContinuation { (finished: CheckedContinuation<Void, any Error>) in
            Thread { finished.resume(with: Result { try launchBlocking(path, arguments, in: folder) }) }.start()
        }
    }

    /// Runs a program and waits for it, with `posix_spawn` and `waitpid`. Not Foundation's `Process`: it learns
    /// of a child's end through a descriptor the child inherits, which the server `pg_ctl start` leaves running
    /// keeps open. The output goes to a file, read when the program fails.
    private static func launchBlocking(_ path: String, _ arguments: [String], in folder: URL) throws {
        let outputPath = folder.appendingPathComponent("command-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw PrivatePostgresError(message: "cannot start \(path): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // Exited normally with status 0: the low 7 bits (the signal) and the exit code are both zero.
        guard status == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw PrivatePostgresError(
                message: "\(path) \(arguments.joined(separator: " ")) failed (\(status)): \(text)"
            )
        }
    }

    /// A loopback port nothing uses now, below the ports the kernel hands out on its own (`ip_local_port_range`):
    /// a server halted and resumed keeps its port, and while it is down, a connection's local port or another
    /// server's port 0 would otherwise take it. The kernel's choice for port 0 when no such port is found.
    private static func freePort() throws -> Int {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let ephemeralLow = range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        if ephemeralLow > 11_024 {
            for _ in 0..<50 {
                let port = Int.random(in: 10_000..<ephemeralLow - 1_000)
                if let bound = try? bindLoopback(port: port) { return bound }
            }
        }
        return try bindLoopback(port: 0)
    }

    /// Binds a loopback socket to `port` (`0`: the kernel's choice), closes it, and returns the port it had.
    private static func bindLoopback(port: Int) throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw PrivatePostgresError(message: "socket() failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else { throw PrivatePostgresError(message: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Why a private PostgreSQL server could not be started or commanded.
public struct PrivatePostgresError: Error, CustomStringConvertible {
    /// What failed, with the program's output.
    public let message: String

    /// The message.
    public var description: String { message }

    /// Whether the server could not start because another socket had taken its port.
    var portWasTaken: Bool { message.contains("Address already in use") }
}
