import Foundation
import Strata
import StrataJSONFile
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
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        folders.append(Bundle.main.bundleURL)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for folder in folders {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw StrataError.notFound("\(name) not found next to the test bundle in \(folders.map(\.path))")
    }

    /// Runs the writer until it acknowledged `acknowledgements` operations (or finished starting, for 0),
    /// kills it with SIGKILL, and returns the acknowledged versions.
    static func runAndKill(
        writer: URL,
        folder: URL,
        durable: Bool,
        first: Int,
        acknowledgements: Int
    ) throws -> [Int] {
        let process = Process()
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
            let data = reader.availableData
            if data.isEmpty { break }  // End of output: the writer exited (or was killed).
            consume(data)
            if !killed, ready, acknowledged.count >= acknowledgements {
                kill(process.processIdentifier, SIGKILL)
                killed = true
            }
        }
        process.waitUntilExit()
        #expect(killed, "the writer exited by itself with status \(process.terminationStatus)")
        return acknowledged
    }

    @Test func killedWritersLeaveEveryEntryOldOrNew() async throws {
        let writer = try Self.writerURL()
        try await withTemporaryFolder { folder in
            var generator = SeededGenerator(seed: 2024)
            for durable in [false, true] {
                let store = folder.appendingPathComponent(durable ? "durable" : "atomic")
                // What each key holds after the operations acknowledged so far.
                var model: [String: CrashPayload] = [:]
                var first = 0
                for _ in 0..<(durable ? 20 : 32) {
                    let acknowledgements = Int.random(in: 0...(durable ? 6 : 40), using: &generator)
                    let acknowledged = try Self.runAndKill(
                        writer: writer,
                        folder: store,
                        durable: durable,
                        first: first,
                        acknowledgements: acknowledgements
                    )
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
                        if key == inFlight.key {
                            #expect(found == model[key] || found == inFlight.value, "\(key) after a kill")
                        } else {
                            #expect(found == model[key], "\(key) after a kill: every acknowledged write is kept")
                        }
                        model[key] = found
                    }
                    #expect(reports.all.isEmpty, "\(reports.all)")
                    #expect(Set(reopened.keys()) == Set(model.keys))
                    first += acknowledged.count + 1
                }
            }
        }
    }
}
