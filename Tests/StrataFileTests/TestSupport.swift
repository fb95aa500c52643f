import Foundation
import Strata
import StrataFile
import StrataTesting

/// A unique temporary folder, removed when the value is released.
final class TemporaryFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("StrataFileTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The folder of the store with this identifier.
    func storeURL(_ identifier: String = "store") -> URL {
        url.appendingPathComponent(identifier, isDirectory: true)
    }

    /// Opens a store in this folder.
    func makeStore(
        _ identifier: String = "store",
        clock: ManualClock = ManualClock(),
        lifetime: FileDataSource.Lifetime = .forever,
        maxSize: Int? = nil,
        maxCount: Int? = nil,
        durability: FileDataSource.Durability = .atomic,
        diagnostics: (@Sendable (String) -> Void)? = nil
    ) throws -> FileDataSource {
        try FileDataSource(
            configuration: .init(
                location: .url(url),
                identifier: identifier,
                lifetime: lifetime,
                maxSize: maxSize,
                maxCount: maxCount,
                durability: durability,
                clock: clock,
                diagnostics: diagnostics
            )
        )
    }

    /// The names of the entry files in a store's folder.
    func entryFiles(_ identifier: String = "store") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: storeURL(identifier).path)
            .filter { $0.hasSuffix(".strata") }
            .sorted()
    }
}

/// A small, fast, seeded random generator (SplitMix64), so random tests repeat.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Collects diagnostics lines from a store.
final class DiagnosticsLog: Sendable {
    private let lines = Locked<[String]>([])

    var messages: [String] { lines.withLock { $0 } }

    func record(_ line: String) {
        lines.withLock { $0.append(line) }
    }
}

/// A query no key-value source understands.
struct UnknownQuery: Query {}

extension Data {
    /// `count` bytes derived from `seed`.
    static func pattern(_ count: Int, seed: UInt8 = 1) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }
}

/// Runs blocking work (a child process, a pipe read) on a thread of its own and awaits it, so the wait never
/// holds one of the few threads of the cooperative pool that every other test needs.
func onDedicatedThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// How many times a crash test kills its writer: `STRATA_CRASH_KILLS` when set (the soak script sets it),
/// else `defaultCount`.
func crashKills(default defaultCount: Int) -> Int {
    ProcessInfo.processInfo.environment["STRATA_CRASH_KILLS"].flatMap { Int($0) }.map { max(1, $0) } ?? defaultCount
}

/// What a crash test saw over all its kills; printed as one `crash-soak` line when `STRATA_CRASH_KILLS` is set.
struct CrashTally {
    var kills = 0
    var acknowledgedWrites = 0
    var entriesChecked = 0
    var inFlightOld = 0
    var inFlightNew = 0
    var corrupt = 0

    /// Counts whether the write under way at the kill landed (new) or not (old).
    mutating func record(inFlightLanded: Bool) {
        if inFlightLanded { inFlightNew += 1 } else { inFlightOld += 1 }
    }

    /// Prints the figures for the soak script (only in a soak run, so CI output stays quiet).
    func report(_ store: String) {
        guard ProcessInfo.processInfo.environment["STRATA_CRASH_KILLS"] != nil else { return }
        print(
            "crash-soak \(store): kills=\(kills) acknowledged=\(acknowledgedWrites) entries=\(entriesChecked)"
                + " in-flight-old=\(inFlightOld) in-flight-new=\(inFlightNew) corrupt=\(corrupt)"
        )
    }
}
