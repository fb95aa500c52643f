import Foundation
import Strata
import StrataFile
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataCache
@testable import StrataCacheCrashWriter

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `StrataCacheCrashWriter` (a fixture executable of this package: a BlobCache fetching from its own
/// loopback server), kills it with `SIGKILL` at random moments and checks the persistent layer it leaves.
struct BlobCacheCrashTests {
    /// Kills per run: 50 by default, `STRATA_CRASH_KILLS` in a soak run (two thirds atomic, one third durable).
    static let kills =
        ProcessInfo.processInfo.environment["STRATA_CRASH_KILLS"].flatMap { Int($0) }.map { max(1, $0) } ?? 50

    @Test(.timeLimit(.minutes(max(5, kills / 10))))
    func killedWritersLeaveEveryBlobWholeAndAcknowledged() async throws {
        let executable = try #require(
            CrashWriterFixture.url(of: "StrataCacheCrashWriter"),
            "build the StrataCacheCrashWriter fixture"
        )
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var generator = SeededRandomNumberGenerator(seed: 0xB10B_CAC4E)
        var lastAcknowledged: [String: Int] = [:]
        var totals = (acknowledged: 0, bodies: 0, damaged: 0, midWrite: 0, inFlightStored: 0)
        for round in 0..<Self.kills {
            // Given a writer killed after a random number of acknowledged fetches (on a thread of its own: the
            // pipe reads, the delay and the wait for the dead process block), each round later than every
            // freshness before
            let mode = round < Self.kills * 2 / 3 ? "atomic" : "durable"
            let target = Int.random(in: 1...40, using: &generator)
            let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(round) * 1_000_000)
            let writer = try CrashWriter(
                executable: executable,
                arguments: [
                    folder.url.path, "blobs", mode, String((round + 1) * 100_000),
                    String(start.timeIntervalSince1970),
                ]
            )
            // A fetch's writes come at its end, after the download: a kill right after an acknowledgement lands
            // in the next request, so the kill waits a seeded 0–3 ms more to land anywhere in a fetch.
            let delay = UInt32.random(in: 0..<3_000, using: &generator)
            let started = try await onDedicatedThread {
                let started = writer.waitForAcknowledgements(target)
                usleep(delay)
                writer.kill()
                return started
            }
            try #require(started, "the writer stopped by itself in round \(round): \(writer.errors)")
            for (name, version) in writer.acknowledged { lastAcknowledged[name] = version }
            totals.acknowledged += writer.acknowledged.count

            // Then the `strata verify` logic finds every entry of the store whole
            let store = "blobs"
            // A temporary file left behind: the kill landed in a write (a figure, not a check).
            let names = try FileManager.default.contentsOfDirectory(
                atPath: folder.url.appendingPathComponent(store).path
            )
            if names.contains(where: { $0.hasPrefix(".strata-tmp-") }) { totals.midWrite += 1 }
            // The inspector holds the folder until it goes, before the cache opens it.
            let damaged = try FileStoreInspector(folder: folder.url.appendingPathComponent(store)).verify()
                .filter { $0.problem != nil }
            totals.damaged += damaged.count
            #expect(
                damaged.isEmpty,
                "round \(round), \(store): \(damaged.map { "\($0.fileName) \($0.problem ?? "")" })"
            )

            // When the folder is opened again with no network
            let cache = try Self.offlineCache(folder: folder.url, now: start)

            // Then no entry was damaged, and each blob is whole: its last acknowledged version or the one in flight
            #expect(cache.blobs.corruptEntriesRemoved == 0, "round \(round)")
            for name in (0..<CrashBlob.count).map({ "p\($0)" }) {
                let url = CrashBlob.url(name)
                let onDisk = try cache.persistentEntry(cache.resolve(url).absoluteString)?.data
                let version = onDisk.flatMap { CrashBlob.version(of: $0, name: name) }
                #expect(onDisk == nil || version != nil, "round \(round) (\(mode)), \(name): a damaged or mixed body")
                var allowed: Set<Int?> = [lastAcknowledged[name]]
                if let inFlight = writer.inFlight, inFlight.name == name { allowed.insert(inFlight.version) }
                #expect(allowed.contains(version), "round \(round) (\(mode)), \(name): \(String(describing: version))")
                // The public paths serve exactly the bytes on disk (fresh, or stale when the network fails).
                if let fresh = try cache.cached(from: url) { #expect(fresh == onDisk, "round \(round), \(name)") }
                let served = try? await cache.fetch(from: url)
                #expect(served == onDisk, "round \(round), \(name): served \(served?.prefix(16) ?? Data())")
                if let version, version != lastAcknowledged[name] { totals.inFlightStored += 1 }
                if let version { lastAcknowledged[name] = version }
                if onDisk != nil { totals.bodies += 1 }
            }
        }
        // One line for the soak script and `Docs/Reliability.md`.
        print(
            "BlobCache crash: \(Self.kills) kills, \(totals.acknowledged) acknowledged fetches, "
                + "\(totals.bodies) cached bodies checked, \(totals.damaged) corrupt entries; "
                + "\(totals.midWrite) kills inside a file write, \(totals.inFlightStored) in-flight downloads stored"
        )
    }

    /// A cache on the writer's folder whose every download fails at once, so fetches answer from disk only.
    static func offlineCache(folder: URL, now: Date) throws -> BlobCache {
        try BlobCache(
            using: HTTPClient(transport: TestTransport(.offline)),
            baseURL: CrashBlob.baseURL,
            configuration: .init(
                persistent: .init(location: .url(folder), identifier: "blobs", maxSize: nil),
                servesStaleOnError: true,
                clock: ManualClock(start: now)
            )
        )
    }
}

/// A running `StrataCacheCrashWriter` and what it printed: each fetch it started and each it acknowledged.
///
/// `@unchecked Sendable`: a writer is handed to one dedicated thread at a time and never used by two at once.
private final class CrashWriter: @unchecked Sendable {
    private let process = ChildProcess()
    private let output = Pipe()
    private let errorOutput = Pipe()
    private var pending = Data()
    /// The acknowledged fetches, in order: blob name and the version fetched.
    private(set) var acknowledged: [(name: String, version: Int)] = []
    /// The fetch started and not acknowledged: blob name and the version the server had.
    private(set) var inFlight: (name: String, version: Int)?
    /// What the writer wrote to its standard error, once it is dead.
    private(set) var errors = ""

    init(executable: URL, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errorOutput
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
        #if canImport(Glibc)
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
        #elseif canImport(Darwin)
            _ = Darwin.kill(process.processIdentifier, SIGKILL)
        #endif
        process.waitUntilExit()
        consume(output.fileHandleForReading.readToEndAcrossInterrupts())
        errors = String(decoding: errorOutput.fileHandleForReading.readToEndAcrossInterrupts(), as: UTF8.self)
    }

    private func consume(_ chunk: Data) {
        pending.append(chunk)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let words = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self).split(separator: " ")
            pending.removeSubrange(pending.startIndex...newline)
            guard words.count == 3, let version = Int(words[2]) else { continue }
            if words[0] == "fetch" { inFlight = (String(words[1]), version) }
            if words[0] == "ack" {
                acknowledged.append((String(words[1]), version))
                inFlight = nil
            }
        }
    }
}
