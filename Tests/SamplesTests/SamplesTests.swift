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

    @Test func theCacheProviderSampleRevalidatesWithETagsAndBypassesTheServerWhenFound() throws {
        let output = try runSample("CacheProviderSample")
        #expect(output.contains("1. downloadAsync (empty cache) -> network, 16384 bytes, server called"))
        #expect(
            output.contains("2. download(progress:completion:) (same ETag) -> notModified, 16384 bytes, server called")
        )
        #expect(output.contains("3. download(progress:) future (asset changed) -> network, 8192 bytes"))
        #expect(output.contains("5. bypass policy, found -> cache, 8192 bytes, server NOT called"))
        #expect(output.contains("6. store over its size limit -> ✗ StrataError.tooLarge"))
        #expect(output.contains("Requests the server received: 5"))
    }

    @Test func theCacheManagerSampleAnswersFromTheCacheAndRevalidatesWithTheHash() throws {
        let output = try runSample("CacheManagerSample")
        #expect(output.contains("2. fetch again at once -> cache, hash \"h1\", maxAge 60, server NOT called"))
        #expect(output.contains("3. after 61 s (stale: hash sent) -> revalidated, hash \"h1\""))
        #expect(output.contains("4. after the screen changed -> network, hash \"h2\""))
        #expect(output.contains("6. isValid after 299 s -> true"))
        #expect(output.contains("7. isValid after 300 s -> false"))
        #expect(output.contains("Requests the server received: 3"))
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
