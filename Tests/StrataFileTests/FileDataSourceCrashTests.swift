import Foundation
import Strata
import StrataFile
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends `SIGKILL` to a process.
private func sendKill(_ process: pid_t) {
    #if canImport(Glibc)
        _ = Glibc.kill(process, SIGKILL)
    #elseif canImport(Darwin)
        _ = Darwin.kill(process, SIGKILL)
    #endif
}

/// Runs `StrataFileCrashWriter` (a fixture executable of this package), kills it with `SIGKILL` at random
/// moments and checks the store it leaves behind.
struct FileDataSourceCrashTests {
    private static func writerURL() -> URL? { CrashWriterFixture.url(of: "StrataFileCrashWriter") }

    /// A running writer and the acknowledgements it printed.
    ///
    /// `@unchecked Sendable`: a writer is handed to one dedicated thread at a time and never used by two at once.
    private final class Writer: @unchecked Sendable {
        let process = ChildProcess()
        private let output = Pipe()
        private var pending = Data()
        private(set) var acknowledged: [Int] = []

        init(executable: URL, folder: URL, identifier: String, mode: String, first: Int) throws {
            process.executableURL = executable
            process.arguments = [folder.path, identifier, mode, String(first)]
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// Reads until at least `count` acknowledgements arrived; false when the writer stopped first.
        func waitForAcknowledgements(_ count: Int) -> Bool {
            while acknowledged.count < count {
                let chunk = output.fileHandleForReading.nextChunk()
                if chunk.isEmpty { return false }
                consume(chunk)
            }
            return true
        }

        /// Kills the writer with `SIGKILL`, waits for it, and reads what it printed before dying.
        func kill() {
            sendKill(process.processIdentifier)
            process.waitUntilExit()
            consume(output.fileHandleForReading.readToEndAcrossInterrupts())
        }

        private func consume(_ chunk: Data) {
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                if line.hasPrefix("ack "), let index = Int(line.dropFirst(4)) { acknowledged.append(index) }
            }
        }
    }

    /// The value the writer stores for write `index` (see the fixture's `main.swift`).
    private static func expectedValue(_ index: Int) -> Data {
        let length = (index &* 7_919) % 24_000 + 8
        var bytes = [UInt8](repeating: 0, count: length)
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        for position in 0..<length {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[position] = UInt8(truncatingIfNeeded: state >> 56)
        }
        withUnsafeBytes(of: UInt64(index).littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
        return Data(bytes)
    }

    /// Kills per run: 60 by default, `STRATA_CRASH_KILLS` in a soak run (two thirds atomic, one third durable).
    private static let kills = CrashWriterFixture.kills(default: 60)

    @Test(.timeLimit(.minutes(max(5, kills / 10))))
    func killedWritersLeaveEveryEntryOldOrNew() async throws {
        let executable = try #require(Self.writerURL(), "build the StrataFileCrashWriter fixture")
        let folder = try TemporaryFolder()
        var generator = SeededRandomNumberGenerator(seed: 0xC0FFEE)
        var lastAcknowledged: [String: Int] = [:]
        var tally = CrashTally()
        for round in 0..<Self.kills {
            // Given a writer killed after a random number of acknowledged writes (on a thread of its own: the
            // pipe reads and the wait for the dead process block)
            let mode = round < Self.kills * 2 / 3 ? "atomic" : "durable"
            let target = Int.random(in: 1...30, using: &generator)
            let writer = try Writer(
                executable: executable,
                folder: folder.url,
                identifier: "crash",
                mode: mode,
                first: round * 100_000
            )
            let started = try await onDedicatedThread {
                let started = writer.waitForAcknowledgements(target)
                writer.kill()
                return started
            }
            try #require(started, "the writer stopped by itself in round \(round)")
            for index in writer.acknowledged { lastAcknowledged["k\(index % 16)"] = index }
            let inFlight = (writer.acknowledged.last ?? round * 100_000 - 1) + 1

            // When the store is opened again
            let store = try folder.makeStore("crash")

            // Then no entry is damaged and each key holds its last acknowledged value or the one in flight
            #expect(store.corruptEntriesRemoved == 0, "round \(round)")
            tally.kills += 1
            tally.acknowledgedWrites += writer.acknowledged.count
            tally.corrupt += store.corruptEntriesRemoved
            for key in (0..<16).map({ "k\($0)" }) {
                let stored = store.value(forKey: key)
                let index = stored.map {
                    Int(UInt64(littleEndian: $0.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
                }
                var allowed: Set<Int?> = [lastAcknowledged[key]]
                if "k\(inFlight % 16)" == key { allowed.insert(inFlight) }
                #expect(allowed.contains(index), "round \(round) (\(mode)), \(key): \(String(describing: index))")
                if let stored, let index { #expect(stored == Self.expectedValue(index), "round \(round), \(key)") }
                if let index, index == inFlight { lastAcknowledged[key] = index }
                tally.entriesChecked += 1
                if "k\(inFlight % 16)" == key { tally.record(inFlightLanded: index == inFlight) }
            }
        }
        tally.report("StrataFile")
    }

    @Test(.timeLimit(.minutes(1)))
    func anotherProcessCannotOpenALiveStore() async throws {
        let executable = try #require(Self.writerURL(), "build the StrataFileCrashWriter fixture")
        let folder = try TemporaryFolder()
        let writer = try Writer(
            executable: executable,
            folder: folder.url,
            identifier: "busy",
            mode: "atomic",
            first: 0
        )
        let started = try await onDedicatedThread { writer.waitForAcknowledgements(1) }

        #expect {
            _ = try folder.makeStore("busy")
        } throws: { ($0 as? StrataError)?.code == .alreadyInUse }
        try await onDedicatedThread { writer.kill() }
        #expect(started)
    }
}
