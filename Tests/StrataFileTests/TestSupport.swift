import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

/// The shared temporary folder, removed when released; the store helpers below are this target's.
typealias TemporaryFolder = StrataTestSupport.TemporaryFolder

extension TemporaryFolder {
    convenience init() throws {
        try self.init(prefix: "StrataFileTests")
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

    /// The contents of the file that stands at `name` in the store's folder or was set aside from it
    /// (`<name>.damaged-<hex>`); fails when there is not exactly one.
    func survivor(of name: String) throws -> Data {
        let names = try FileManager.default.contentsOfDirectory(atPath: storeURL().path)
            .filter { $0 == name || $0.hasPrefix(name + ".damaged-") }
        try #require(names.count == 1, "the file at \(name) is gone: \(names)")
        return try Data(contentsOf: storeURL().appendingPathComponent(names[0]))
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

/// Asks the crash-writer fixture, in a process of its own, to open the store `identifier` in `location` once.
///
/// - Returns: `opened`, `in use`, or what else it said.
func probeFromAnotherProcess(location: URL, identifier: String) throws -> String {
    let executable = try #require(
        CrashWriterFixture.url(of: "StrataFileCrashWriter"),
        "build the StrataFileCrashWriter fixture"
    )
    let process = ChildProcess()
    process.executableURL = executable
    process.arguments = [location.path, identifier, "probe", "0"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let said = output.fileHandleForReading.readToEndAcrossInterrupts()
    process.waitUntilExit()
    return String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
