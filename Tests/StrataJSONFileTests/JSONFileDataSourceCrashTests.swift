import Foundation
import Strata
import StrataJSONFile
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Kills a writer process (the `StrataJSONFileCrashWriter` fixture) at random moments and checks after each
/// kill that the store opens, every entry decodes, and every entry is its old or its new value.
struct JSONFileDataSourceCrashTests {
    /// The writer's value; the same shape as the fixture's.
    struct CrashPayload: Codable, Sendable, Equatable {
        var key: String
        var version: Int
        var filler: String
    }

    static let keyCount = 12

    /// The key operation `version` targets, and the value it leaves (`nil`: it removes the key).
    static func operation(_ version: Int) -> (key: String, value: CrashPayload?) {
        let key = "k\(version % keyCount)"
        if version % 7 == 3 { return (key, nil) }
        return (key, CrashPayload(key: key, version: version, filler: String(repeating: "x", count: version % 1500)))
    }

    static func writerURL() throws -> URL {
        let name = "StrataJSONFileCrashWriter"
        guard let url = CrashWriterFixture.url(of: name) else {
            throw StrataError.notFound("\(name) not found next to the test bundle or in .build/debug")
        }
        return url
    }

    /// Runs the writer until it acknowledged `acknowledgements` operations (or finished starting, for 0),
    /// kills it with SIGKILL, and returns the acknowledged versions, whether the kill did it and how the process
    /// ended (``ChildProcess/terminationStatus``: 1 when the writer reported a typed error).
    ///
    /// Blocking (pipe reads, the wait for the dead process): call it through ``onDedicatedThread(_:)``.
    static func runAndKill(
        writer: URL,
        folder: URL,
        durable: Bool,
        first: Int,
        acknowledgements: Int
    ) throws -> (acknowledged: [Int], killed: Bool, status: Int32) {
        let process = ChildProcess()
        process.executableURL = writer
        process.arguments = [folder.path, durable ? "durable" : "atomic", "\(first)", "\(keyCount)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading
        var buffer = ""
        var ready = false
        var acknowledged: [Int] = []
        var killed = false

        func consume(_ data: Data) {
            buffer += String(decoding: data, as: UTF8.self)
            while let newline = buffer.firstIndex(of: "\n") {
                let line = buffer[..<newline]
                buffer = String(buffer[buffer.index(after: newline)...])
                if line == "READY" {
                    ready = true
                } else if line.hasPrefix("ACK "), let version = Int(line.dropFirst(4)) {
                    acknowledged.append(version)
                }
            }
        }

        while true {
            let data = reader.nextChunk()
            if data.isEmpty { break }  // End of output: the writer exited (or was killed).
            consume(data)
            if !killed, ready, acknowledged.count >= acknowledgements {
                kill(process.processIdentifier, SIGKILL)
                killed = true
            }
        }
        process.waitUntilExit()
        return (acknowledged, killed, process.terminationStatus)
    }

    /// Kills per run: 52 by default (32 atomic, 20 durable), `STRATA_CRASH_KILLS` in a soak run (in the same
    /// proportions).
    static let kills = CrashWriterFixture.kills(default: 52)

    @Test(.timeLimit(.minutes(max(5, kills / 10))))
    func killedWritersLeaveEveryEntryOldOrNew() async throws {
        let writer = try Self.writerURL()
        try await withTemporaryFolder { folder in
            var generator = SeededRandomNumberGenerator(seed: 2024)
            let atomicKills = Self.kills * 8 / 13
            // Figures for the soak script: kills, acknowledged writes, entries checked, in-flight old/new, reports.
            var figures = (kills: 0, acknowledged: 0, entries: 0, old: 0, new: 0, reports: 0)
            for durable in [false, true] {
                let store = folder.appendingPathComponent(durable ? "durable" : "atomic")
                // What each key holds after the operations acknowledged so far.
                var model: [String: CrashPayload] = [:]
                var first = 0
                for _ in 0..<(durable ? Self.kills - atomicKills : atomicKills) {
                    let acknowledgements = Int.random(in: 0...(durable ? 6 : 40), using: &generator)
                    let start = first
                    let (acknowledged, killed, _) = try await onDedicatedThread {
                        try Self.runAndKill(
                            writer: writer,
                            folder: store,
                            durable: durable,
                            first: start,
                            acknowledgements: acknowledgements
                        )
                    }
                    #expect(killed, "the writer exited by itself")
                    #expect(acknowledged == Array(first..<(first + acknowledged.count)))
                    for version in acknowledged {
                        let (key, value) = Self.operation(version)
                        model[key] = value
                    }
                    // The operation that may have been under way when the writer died.
                    let inFlight = Self.operation(first + acknowledged.count)

                    let reports = ReportCollector()
                    let reopened = try JSONFileDataSource<CrashPayload>(
                        configuration: .init(folder: store, diagnostics: reports.diagnostics)
                    )
                    for index in 0..<Self.keyCount {
                        let key = "k\(index)"
                        let found = try reopened.value(forKey: key)
                        figures.entries += 1
                        if key == inFlight.key {
                            #expect(found == model[key] || found == inFlight.value, "\(key) after a kill")
                            if found == inFlight.value && found != model[key] {
                                figures.new += 1
                            } else {
                                figures.old += 1
                            }
                        } else {
                            #expect(found == model[key], "\(key) after a kill: every acknowledged write is kept")
                        }
                        model[key] = found
                    }
                    #expect(reports.all.isEmpty, "\(reports.all)")
                    figures.kills += 1
                    figures.acknowledged += acknowledged.count
                    figures.reports += reports.all.count
                    #expect(Set(reopened.sortedKeys()) == Set(model.keys))
                    first += acknowledged.count + 1
                }
            }
            if ProcessInfo.processInfo.environment["STRATA_CRASH_KILLS"] != nil {
                print(
                    "crash-soak StrataJSONFile: kills=\(figures.kills) acknowledged=\(figures.acknowledged)"
                        + " entries=\(figures.entries) in-flight-old=\(figures.old) in-flight-new=\(figures.new)"
                        + " corrupt=\(figures.reports)"
                )
            }
        }
    }
}
