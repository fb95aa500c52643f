import Foundation
import StrataTestSupport
import Testing

/// Runs each sample's built binary and checks what it prints, like swift-argument-parser's example tests.
struct SamplesTests {
    @Test func theTourWalksThroughTheOperations() async throws {
        let output = try await runSample("StrataTour")
        #expect(output.contains("cache.get(\"1\") -> notFound"))
        #expect(output.contains("main.get(\"1\") -> Ada"))
        #expect(output.contains("operationNotSupported"))
        #expect(output.contains("= Ada Lovelace (#1)"))
        #expect(output.contains("The server saw 2 requests; the disk holds 1 entries."))
        #expect(output.contains("api.get: 2 calls, 1 hits, 1 misses"))
        #expect(output.contains("after reopening: [Ada (#1), Grace (#2), Edsger (#3)]"))
        #expect(output.contains("screen shows Countess of Lovelace"))
        #expect(output.contains("10 fetches returned 40960 bytes in all"))
        #expect(output.contains("The server saw 1 request."))
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
    func eachOperationSampleShowsWhichSourceAnswered(sample: String, expected: [String]) async throws {
        let output = try await runSample(sample)
        for line in expected { #expect(output.contains(line), "\(sample) did not print \(line)") }
        #expect(!output.contains("✗ operationNotSupported"))
    }

    @Test func theCacheProviderSampleRevalidatesWithETagsAndBypassesTheServerWhenFound() async throws {
        let output = try await runSample("CacheProviderSample")
        #expect(output.contains("1. downloadAsync (empty cache) -> network, 16384 bytes, server called"))
        #expect(
            output.contains("2. download(progress:completion:) (same ETag) -> revalidated, 16384 bytes, server called")
        )
        #expect(output.contains("3. download(progress:) future (asset changed) -> network, 8192 bytes"))
        #expect(output.contains("5. bypass policy, found -> cache, 8192 bytes, server NOT called"))
        #expect(output.contains("6. store over its size limit -> ✗ StrataError.tooLarge"))
        #expect(output.contains("Requests the server received: 5"))
    }

    @Test func theOfflineNotesSampleQueuesWritesWhileDownDrainsThemAndMergesAConflict() async throws {
        let output = try await runSample("OfflineNotes")
        #expect(output.contains("  put groceries \"Buy milk\" -> pending (write #1, attempts 1)"))
        #expect(output.contains("  get groceries -> \"Buy milk and eggs\" (pending)"))
        #expect(output.contains("  [screen] Buy milk and eggs — saving…"))
        #expect(output.contains("    #1 put groceries, attempts 1, last error HTTP 503"))
        #expect(output.contains("  delivered 3, remaining 0"))
        #expect(output.contains("  [screen] Buy milk and eggs — saved"))
        #expect(
            output.contains(
                "  server applied PUT groceries \"Buy milk\" (Idempotency-Key sent: true)\n"
                    + "  server applied PUT groceries \"Buy milk and eggs\" (Idempotency-Key sent: true)\n"
                    + "  server applied PUT calls \"Call Ada\" (Idempotency-Key sent: true)\n"
            )
        )
        #expect(output.contains("  conflict on calls: here \"Call Ada at 5\", server \"Call Grace\" -> merge"))
        #expect(output.contains("  server: \"Call Grace / Call Ada at 5\""))
        #expect(output.hasSuffix("Done.\n"))
    }

    @Test func theCacheManagerSampleAnswersFromTheCacheAndRevalidatesWithTheHash() async throws {
        let output = try await runSample("CacheManagerSample")
        #expect(output.contains("2. fetch again at once -> cache, hash \"h1\", maxAge 60, server NOT called"))
        #expect(output.contains("3. after 61 s (stale: hash sent) -> revalidated, hash \"h1\""))
        #expect(output.contains("4. after the screen changed -> network, hash \"h2\""))
        #expect(output.contains("6. isValid after 299 s -> true"))
        #expect(output.contains("7. isValid after 300 s -> false"))
        #expect(output.contains("Requests the server received: 3"))
    }

    @Test func theBlobCacheSampleShowsWhichLayerAnsweredEachScenario() async throws {
        let output = try await runSample("BlobCacheSample")
        #expect(output.contains("  fetch: PNG bytes <- network (requests so far: 1)"))
        #expect(output.contains("  fetch: PNG bytes <- file (requests so far: 1)"))
        #expect(output.contains("  fetch again: PNG bytes <- memory (requests so far: 1)"))
        #expect(output.contains("  fetch: PNG bytes <- revalidated (requests so far: 2)"))
        #expect(output.contains("0 in memory, 1 on disk"))
    }
}

/// Runs a built executable of this package and returns its standard output.
///
/// The pipe read and the wait block, so they run on a thread of their own, never on the cooperative pool.
func runSample(_ name: String, arguments: [String] = []) async throws -> String {
    let (data, status) = try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(
                with: Result {
                    let process = ChildProcess()
                    process.executableURL = productsDirectory.appendingPathComponent(name)
                    process.arguments = arguments
                    let pipe = Pipe()
                    process.standardOutput = pipe
                    try process.run()
                    // A sample that hangs is stopped after a minute, and the test fails on its exit status.
                    DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
                        if process.isRunning { process.terminate() }
                    }
                    let data = pipe.fileHandleForReading.readToEndAcrossInterrupts()
                    process.waitUntilExit()
                    return (data, process.terminationStatus)
                }
            )
        }
        .start()
    }
    #expect(status == 0, "\(name) exited with \(status)")
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
