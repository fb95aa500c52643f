import Foundation
import StrataTestSupport
import Testing

/// What a run of the built `strata` binary printed and returned.
struct ToolRun {
    var status: Int32
    var output: String
    var errors: String

    /// Standard output parsed as a JSON object.
    func json() throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(output.utf8))
        return try #require(value as? [String: Any], "not a JSON object: \(output)")
    }
}

/// Runs the built `strata` binary without blocking a thread: output goes to files, the exit is awaited.
func strata(_ arguments: String..., environment: [String: String] = [:]) async throws -> ToolRun {
    try await strata(arguments: arguments, environment: environment)
}

/// Runs the built `strata` binary with `arguments`; see ``strata(_:environment:)``. Its standard output goes to
/// `standardOutput` when one is given (`ToolRun/output` is then empty).
func strata(
    arguments: [String],
    environment: [String: String] = [:],
    standardOutput: FileHandle? = nil
) async throws -> ToolRun {
    try await run(
        productsDirectory.appendingPathComponent("strata"),
        arguments: arguments,
        environment: environment,
        standardOutput: standardOutput
    )
}

/// Runs the built `strata` binary through `sh -c script`, with `$0` the binary and `$1`… `arguments`: for
/// arguments a `String` cannot hold (bytes that are not UTF-8, made by `printf` in the script).
func strata(shellScript script: String, arguments: [String]) async throws -> ToolRun {
    let binary = productsDirectory.appendingPathComponent("strata").path
    return try await run(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script, binary] + arguments)
}

/// Runs `executable`; see ``strata(arguments:environment:standardOutput:)``.
private func run(
    _ executable: URL,
    arguments: [String],
    environment: [String: String] = [:],
    standardOutput: FileHandle? = nil
) async throws -> ToolRun {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outputURL = folder.appendingPathComponent("stdout")
    let errorsURL = folder.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
    let output = try FileHandle(forWritingTo: outputURL)
    let errors = try FileHandle(forWritingTo: errorsURL)
    let process = ChildProcess()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = standardOutput ?? output
    process.standardError = errors
    let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do {
            try process.run()
        } catch {
            process.terminationHandler = nil
            continuation.resume(returning: -1)
        }
    }
    try output.close()
    try errors.close()
    return ToolRun(
        status: status,
        output: try String(contentsOf: outputURL, encoding: .utf8),
        errors: try String(contentsOf: errorsURL, encoding: .utf8)
    )
}

/// The folder of the built products: the test bundle's folder.
let productsDirectory: URL = {
    let bundle = Bundle.main.bundleURL
    for candidate in [bundle, bundle.deletingLastPathComponent()]
    where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("strata").path) {
        return candidate
    }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
}()

/// The shared temporary folder, removed when released.
typealias TemporaryFolder = StrataTestSupport.TemporaryFolder

extension TemporaryFolder {
    convenience init() throws {
        try self.init(prefix: "StrataToolTests")
    }

    /// The names in a folder inside, sorted.
    func names(in name: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path(name)).sorted()
    }
}
