import Foundation
import LoopbackServer
import Strata
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Kills a writer process (the `StrataOfflineCrashWriter` fixture) with SIGKILL at random moments while the
/// notes server it writes to goes up and down (the writer also reads from main, and a read main answers replays
/// the outbox beside its writes), restarts it on the same outbox, and finally drains the outbox:
/// every write the writer saw acknowledged reaches the server exactly once, in order per key, and the server
/// applied nothing the writer did not issue.
struct OfflineCrashTests {
    static let keyCount = 5

    /// Kills per run: 52 by default, `STRATA_CRASH_KILLS` in a soak run.
    static let kills = CrashWriterFixture.kills(default: 52)

    static func writerURL() throws -> URL {
        let name = "StrataOfflineCrashWriter"
        guard let url = CrashWriterFixture.url(of: name) else {
            throw StrataError.notFound("\(name) not found next to the test bundle or in .build/debug")
        }
        return url
    }

    /// What one run of the writer printed.
    struct Run: Sendable {
        var issued: [Int] = []
        var acknowledged: [Int] = []
        /// Reads main answered (each one replays the outbox when writes wait in it).
        var mainReads = 0
        var drained = false
        var killed = false
    }

    /// Runs the writer until it acknowledged `acknowledgements` writes (or drained), killing it then with
    /// SIGKILL unless it is draining. Blocking: call it through ``onDedicatedThread(_:)``.
    static func run(
        writer: URL,
        folder: URL,
        server: URL,
        first: Int,
        mode: String,
        acknowledgements: Int
    ) throws -> Run {
        let process = ChildProcess()
        process.executableURL = writer
        process.arguments = [folder.path, server.absoluteString, "\(first)", "\(keyCount)", mode]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading
        var buffer = ""
        var run = Run()
        var ready = false
        while true {
            let data = reader.nextChunk()
            if data.isEmpty { break }
            buffer += String(decoding: data, as: UTF8.self)
            while let newline = buffer.firstIndex(of: "\n") {
                let line = buffer[..<newline]
                buffer = String(buffer[buffer.index(after: newline)...])
                if line == "READY" {
                    ready = true
                } else if line == "READ" {
                    run.mainReads += 1
                } else if line == "DRAINED" {
                    run.drained = true
                } else if line.hasPrefix("ISSUE "), let number = Int(line.dropFirst(6)) {
                    run.issued.append(number)
                } else if line.hasPrefix("ACK "), let number = Int(line.dropFirst(4)) {
                    run.acknowledged.append(number)
                }
            }
            if mode == "write", !run.killed, ready, run.acknowledged.count >= acknowledgements {
                kill(process.processIdentifier, SIGKILL)
                run.killed = true
            }
        }
        process.waitUntilExit()
        return run
    }

    @Test(.timeLimit(.minutes(max(5, kills / 10))))
    func acknowledgedWritesReachMainOnceInOrder() async throws {
        let writer = try Self.writerURL()
        let server = try await NotesServer.start()
        // The note the writer reads (never written: every write the server applies is one of the writer's).
        server.setNote(try JSONEncoder().encode(Note(id: "ping", text: "pong", version: -1)), forKey: "ping")
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // The server goes down and up every few milliseconds while the writer runs.
        let flipper = Task {
            var generator = SeededRandomNumberGenerator(seed: 7)
            while !Task.isCancelled {
                server.isDown = Bool.random(using: &generator)
                try? await Task.sleep(for: .milliseconds(Int.random(in: 2...25, using: &generator)))
            }
        }
        var generator = SeededRandomNumberGenerator(seed: 2026)
        var issued = Set<Int>()
        var acknowledged = Set<Int>()
        var first = 0
        var kills = 0
        var mainReads = 0
        for _ in 0..<Self.kills {
            let target = Int.random(in: 0...30, using: &generator)
            let start = first
            let run = try await onDedicatedThread {
                try Self.run(
                    writer: writer,
                    folder: folder,
                    server: server.baseURL,
                    first: start,
                    mode: "write",
                    acknowledgements: target
                )
            }
            #expect(run.killed, "the writer exited by itself")
            kills += run.killed ? 1 : 0
            mainReads += run.mainReads
            #expect(run.acknowledged == Array(first..<(first + run.acknowledged.count)))
            issued.formUnion(run.issued)
            acknowledged.formUnion(run.acknowledged)
            first = (run.issued.max() ?? first - 1) + 1
        }
        flipper.cancel()
        _ = await flipper.value
        server.isDown = false
        let drain = try await onDedicatedThread {
            try Self.run(
                writer: writer,
                folder: folder,
                server: server.baseURL,
                first: 0,
                mode: "drain",
                acknowledgements: 0
            )
        }
        #expect(drain.drained)

        let applied = server.applied.map { write in
            (key: write.key, version: (try? JSONDecoder().decode(Note.self, from: write.body))?.version ?? -1)
        }
        var appliedCount: [Int: Int] = [:]
        for write in applied { appliedCount[write.version, default: 0] += 1 }
        for number in acknowledged.sorted() {
            #expect(
                appliedCount[number] == 1,
                "acknowledged write \(number) applied \(appliedCount[number] ?? 0) times"
            )
        }
        for (number, count) in appliedCount {
            #expect(issued.contains(number), "the server applied \(number), which the writer never issued")
            #expect(count == 1, "write \(number) applied \(count) times")
        }
        for index in 0..<Self.keyCount {
            let versions = applied.filter { $0.key == "k\(index)" }.map(\.version)
            #expect(versions == versions.sorted(), "k\(index) applied out of order: \(versions)")
        }
        if ProcessInfo.processInfo.environment["STRATA_CRASH_KILLS"] != nil {
            print(
                "crash-soak StrataOffline: kills=\(kills) issued=\(issued.count) acknowledged=\(acknowledged.count)"
                    + " applied=\(applied.count) duplicates-refused=\(server.duplicateCount) main-reads=\(mainReads)"
            )
        }
        await server.stop()
    }
}
