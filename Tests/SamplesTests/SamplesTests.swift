import Foundation
import Testing

/// Runs each sample's built binary and checks what it prints, like swift-argument-parser's example tests.
struct SamplesTests {
    @Test func theTourWalksThroughTheOperations() throws {
        let output = try runSample("StrataTour")
        #expect(output.contains("cache.get(\"1\") -> notFound"))
        #expect(output.contains("main.get(\"1\") -> Ada"))
        #expect(output.contains("operationNotSupported"))
        #expect(output.contains("= Ada Lovelace (#1)"))
        #expect(output.contains("The server saw 2 requests; the disk holds 1 entries."))
        #expect(output.contains("api.get: 2 calls, 1 hits, 1 misses"))
        #expect(output.contains("after reopening: [Ada (#1), Grace (#2), Edsger (#3)]"))
        #expect(output.contains("screen shows Countess of Lovelace"))
        #expect(output.hasSuffix("Done.\n"))
    }

    @Test(arguments: [
        ("DefaultOperationSample", ["cache.get(\"1\") -> notFound", "main.get(\"1\") -> Ada", "main.put(Barbara"]),
        ("MainOperationSample", ["main.get(\"2\") -> Grace", "The cache holds 0 entries."]),
        ("MainSyncOperationSample", ["main.get(\"2\") -> Grace", "cache.put(Grace, in: \"2\")"]),
        ("CacheOperationSample", ["✗ notValid", "= Ada", "cache.get(\"2\") -> notFound"]),
        ("CacheSyncOperationSample", ["cache.get(\"1\") -> notFound", "main.put(Frances"]),
        ("CacheSyncFallbackOperationSample", ["main.get(\"1\") -> network", "= Ada", "✗ unauthorized"]),
    ])
    func eachOperationSampleShowsWhichSourceAnswered(sample: String, expected: [String]) throws {
        let output = try runSample(sample)
        for line in expected { #expect(output.contains(line), "\(sample) did not print \(line)") }
        #expect(!output.contains("✗ operationNotSupported"))
    }
}

/// Runs a built executable of this package and returns its standard output.
func runSample(_ name: String, arguments: [String] = []) throws -> String {
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent(name)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    // A sample that hangs is stopped after a minute, and the test fails on its exit status.
    DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if process.isRunning { process.terminate() } }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(name) exited with \(process.terminationStatus)")
    return String(decoding: data, as: UTF8.self)
}

/// The folder of the built products: the test bundle's folder.
let productsDirectory: URL = {
    let bundle = Bundle.main.bundleURL
    for candidate in [bundle, bundle.deletingLastPathComponent()]
    where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("StrataTour").path) {
        return candidate
    }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
}()
