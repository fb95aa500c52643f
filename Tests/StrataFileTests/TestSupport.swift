import Foundation
import Strata
import StrataFile
import StrataTesting
import Testing

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
        timeToLive: Duration? = nil,
        maxSize: Int? = nil,
        countLimit: Int? = nil,
        durability: StoreDurability = .atomic,
        diagnostics: (@Sendable (StrataError) -> Void)? = nil
    ) throws -> FileDataSource {
        try FileDataSource(
            configuration: .init(
                location: .url(url),
                identifier: identifier,
                timeToLive: timeToLive,
                maxSize: maxSize,
                countLimit: countLimit,
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

    func record(_ report: StrataError) {
        #expect(report.code == .corrupt)
        lines.withLock { $0.append(report.message) }
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

/// A bind mount made with the system's `mount`, for tests that reach one folder through a second path; the
/// test skips (printing why) when `mount` is unavailable or not permitted (not root).
final class BindMount {
    let url: URL

    private init(url: URL) {
        self.url = url
    }

    /// Mounts `source` at `target` (created when missing), then remounts it read-only when asked; `nil` (after
    /// printing why the test is skipped) when that is not possible here.
    static func make(_ source: URL, at target: URL, readOnly: Bool = false, test: String = #function) -> BindMount? {
        try? FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        if let failure = run(["--bind", source.path, target.path]) {
            print("\(test) skipped: mount --bind is unavailable here (\(failure))")
            return nil
        }
        let mount = BindMount(url: target)
        if readOnly, let failure = run(["-o", "remount,ro,bind", target.path]) {
            print("\(test) skipped: a read-only remount is unavailable here (\(failure))")
            return nil
        }
        return mount
    }

    deinit {
        _ = Self.run([url.path], tool: "umount")
    }

    /// Runs `mount` (or `tool`) with `arguments`; `nil` on success, else what went wrong.
    private static func run(_ arguments: [String], tool: String = "mount") -> String? {
        let candidates = ["/usr/bin/\(tool)", "/bin/\(tool)", "/sbin/\(tool)", "/usr/sbin/\(tool)"]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return "no \(tool) command"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "\(error)"
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return nil
    }
}

/// Every item under `url` (not following links): relative path → file bytes, link destination or `folder`.
func snapshot(_ url: URL) throws -> [String: String] {
    var result: [String: String] = [:]
    let manager = FileManager.default
    for name in try manager.contentsOfDirectory(atPath: url.path) {
        let item = url.appendingPathComponent(name)
        let type = try manager.attributesOfItem(atPath: item.path)[.type] as? FileAttributeType
        switch type {
        case .typeSymbolicLink?: result[name] = "link → " + (try manager.destinationOfSymbolicLink(atPath: item.path))
        case .typeDirectory?:
            result[name] = "folder"
            for (inner, value) in try snapshot(item) { result[name + "/" + inner] = value }
        default: result[name] = try Data(contentsOf: item).base64EncodedString()
        }
    }
    return result
}

/// The built `StrataFileCrashWriter` fixture: beside the test bundle or runner, or in `.build/debug` of this
/// package.
func crashWriterURL() -> URL? {
    var folders = [
        Bundle.main.bundleURL,
        Bundle.main.bundleURL.deletingLastPathComponent(),
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
    ]
    folders += Bundle.allBundles.filter { $0.bundleURL.pathExtension == "xctest" }
        .map { $0.bundleURL.deletingLastPathComponent() }
    let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    folders.append(packageRoot.appendingPathComponent(".build/debug"))
    return folders.map { $0.appendingPathComponent("StrataFileCrashWriter") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// Asks the crash-writer fixture, in a process of its own, to open the store `identifier` in `location` once.
///
/// - Returns: `opened`, `in use`, or what else it said.
func probeFromAnotherProcess(location: URL, identifier: String) throws -> String {
    let executable = try #require(crashWriterURL(), "build the StrataFileCrashWriter fixture")
    let process = Process()
    process.executableURL = executable
    process.arguments = [location.path, identifier, "probe", "0"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let said = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
