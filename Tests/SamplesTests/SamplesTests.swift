import Foundation
import Testing

/// Runs each sample's built binary and checks what it prints, like swift-argument-parser's example tests.
struct SamplesTests {
    @Test func theTourWalksThroughTheOperations() throws {
        let output = try runSample("StrataTour")
        #expect(output.contains("cache.get(\"1\") -> notFound"))
        #expect(output.contains("main.get(\"1\") -> Ada"))
        #expect(output.contains("operationNotSupported"))
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

    @Test func theBlobCacheSampleShowsWhichLayerAnsweredEachScenario() throws {
        let output = try runSample("BlobCacheSample")
        #expect(output.contains("  fetch: PNG bytes <- network (requests so far: 1)"))
        #expect(output.contains("  fetch: PNG bytes <- persistent (requests so far: 1)"))
        #expect(output.contains("  fetch again: PNG bytes <- ephemeral (requests so far: 1)"))
        #expect(output.contains("  fetch: PNG bytes <- revalidated (requests so far: 2)"))
        #expect(output.contains("0 in memory, 1 on disk"))
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
