import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

@testable import StrataCache

/// RFC 5861 in a BlobCache: a response's `stale-while-revalidate` serves a stale blob at once and revalidates
/// it in the background; its `stale-if-error` serves it when revalidating fails.
struct BlobCacheStaleWindowTests {
    /// A server whose answers to `/a` are versions `v1`, `v2`, … with the given `Cache-Control` and an `ETag`,
    /// and that can be made to fail or to hold revalidations until released.
    final class Origin: Sendable {
        private struct State {
            var version = 0
            var failing = false
            var holdsRevalidations = false
        }

        private let state = Locked(State())
        let cacheControl: String
        let sendsETag: Bool

        init(cacheControl: String, sendsETag: Bool = true) {
            self.cacheControl = cacheControl
            self.sendsETag = sendsETag
        }

        func fail() { state.withLock { $0.failing = true } }
        func holdRevalidations() { state.withLock { $0.holdsRevalidations = true } }
        func release() { state.withLock { $0.holdsRevalidations = false } }

        var route: @Sendable (ServerRequest) async throws -> ServerReply {
            { [self] _ in
                // A held request waits for the test's release (polling: the test, not a timer, decides).
                while state.withLock({ $0.version > 0 && $0.holdsRevalidations }) {
                    try await Task.sleep(for: .milliseconds(2))
                }
                let (failing, version) = state.withLock { state in
                    if !state.failing { state.version += 1 }
                    return (state.failing, state.version)
                }
                if failing { return ServerReply(status: 503) }
                var headers = ["Cache-Control": cacheControl]
                if sendsETag { headers["ETag"] = "\"v\(version)\"" }
                return ServerReply(status: 200, headers: headers, body: Data("v\(version)".utf8))
            }
        }
    }

    /// A cache on the fixture that downloaded `/a` once, with the clock then moved on by `elapsed`.
    static func cacheAfterOneDownload(_ fixture: BlobCacheFixture, elapsed: Duration) async throws -> BlobCache {
        let cache = try fixture.makeCache()
        _ = try await cache.fetch(from: fixture.url("a")) as Data
        fixture.clock.advance(by: elapsed)
        return cache
    }

    // MARK: - stale-while-revalidate

    @Test(arguments: [true, false])
    func insideTheWindowAStaleBlobIsServedAtOnceAndRevalidatedInTheBackground(sendsETag: Bool) async throws {
        let origin = Origin(cacheControl: "max-age=60, stale-while-revalidate=30", sendsETag: sendsETag)
        try await withFixture([("GET /a", origin.route)]) { fixture in
            // Given a blob stale for 10 s of its 30 s window
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .seconds(70))

            // When it is fetched
            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))

            // Then the stale blob answers, and the background revalidation stores the new one
            #expect(fetched.origin == .stale)
            #expect(fetched.data == Data("v1".utf8))
            await cache.waitForBackgroundRefreshes()
            #expect(fixture.server.requestCount(path: "/a") == 2)
            let next = try await cache.fetchWithLayer(from: fixture.url("a"))
            #expect(next.origin == .file)
            #expect(next.data == Data("v2".utf8))
        }
    }

    @Test func pastTheWindowAStaleBlobIsRevalidatedBeforeAnswering() async throws {
        let origin = Origin(cacheControl: "max-age=60, stale-while-revalidate=30")
        try await withFixture([("GET /a", origin.route)]) { fixture in
            // Exactly at the window's end: outside it
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .seconds(90))

            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))

            #expect(fetched.origin == .network)
            #expect(fetched.data == Data("v2".utf8))
            #expect(cache.backgroundRefreshCount == 0)
        }
    }

    @Test func withoutTheDirectiveAStaleBlobIsRevalidatedBeforeAnswering() async throws {
        let origin = Origin(cacheControl: "max-age=60")
        try await withFixture([("GET /a", origin.route)]) { fixture in
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .seconds(61))

            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))

            #expect(fetched.origin == .network)
            #expect(fetched.data == Data("v2".utf8))
        }
    }

    @Test func mustRevalidateOverridesTheWindow() async throws {
        let origin = Origin(cacheControl: "max-age=60, stale-while-revalidate=30, must-revalidate")
        try await withFixture([("GET /a", origin.route)]) { fixture in
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .seconds(70))

            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .network)
        }
    }

    @Test func aHundredConcurrentFetchesOfAStaleBlobMakeOneRevalidation() async throws {
        let origin = Origin(cacheControl: "max-age=60, stale-while-revalidate=30")
        try await withFixture([("GET /a", origin.route)]) { fixture in
            // Given a stale blob inside its window, and a server that holds revalidations
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .seconds(70))
            origin.holdRevalidations()

            // When 100 fetches run at once
            let origins = try await withThrowingTaskGroup(of: DataOrigin.self) { group in
                for _ in 0..<100 {
                    group.addTask { try await cache.fetchWithLayer(from: fixture.url("a")).origin }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            // Then every one is answered stale while one revalidation waits at the server
            #expect(origins == Array(repeating: .stale, count: 100))
            origin.release()
            await cache.waitForBackgroundRefreshes()
            #expect(fixture.server.requestCount(path: "/a") == 2)
            #expect(try await cache.fetch(from: fixture.url("a")) == Data("v2".utf8))
        }
    }

    @Test func aFailedBackgroundRevalidationThrowsAtNobodyAndKeepsTheStaleBlob() async throws {
        let origin = Origin(cacheControl: "max-age=60, stale-while-revalidate=30")
        try await withFixture([("GET /a", origin.route)]) { fixture in
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .seconds(70))
            origin.fail()

            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .stale)
            await cache.waitForBackgroundRefreshes()
            let again = try await cache.fetchWithLayer(from: fixture.url("a"))

            #expect(again.origin == .stale)
            #expect(again.data == Data("v1".utf8))
            await cache.waitForBackgroundRefreshes()
            #expect(fixture.server.requestCount(path: "/a") == 3)
        }
    }

    @Test func theWindowSurvivesARestart() async throws {
        let origin = Origin(cacheControl: "max-age=60, stale-while-revalidate=30")
        try await withFixture([("GET /a", origin.route)]) { fixture in
            _ = try await Self.cacheAfterOneDownload(fixture, elapsed: .zero)
            let cache = try fixture.makeCache()
            fixture.clock.advance(by: .seconds(70))

            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .stale)
            await cache.waitForBackgroundRefreshes()
        }
    }

    // MARK: - stale-if-error

    @Test(arguments: [true, false])
    func insideItsWindowAStaleBlobStandsInForA5xxWithoutConfiguration(sendsETag: Bool) async throws {
        let origin = Origin(cacheControl: "max-age=60, stale-if-error=100", sendsETag: sendsETag)
        try await withFixture([("GET /a", origin.route)]) { fixture in
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .zero)
            origin.fail()

            fixture.clock.advance(by: .seconds(159))
            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))
            #expect(fetched.origin == .stale)
            #expect(fetched.data == Data("v1".utf8))

            fixture.clock.advance(by: .seconds(1))
            let error = await strataError { _ = try await cache.fetch(from: fixture.url("a")) as Data }
            #expect(error?.code == .unexpectedResponse)
        }
    }

    @Test func insideItsWindowAStaleBlobStandsInForANetworkError() async throws {
        let origin = Origin(cacheControl: "max-age=60, stale-if-error=100")
        try await withFixture([("GET /a", origin.route)]) { fixture in
            _ = try await Self.cacheAfterOneDownload(fixture, elapsed: .seconds(70))
            // The same folder, read by a cache whose network is down
            let cache = try fixture.makeCache(transport: TestTransport(.offline))

            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .stale)
            fixture.clock.advance(by: .seconds(100))
            let error = await strataError { _ = try await cache.fetch(from: fixture.url("a")) as Data }
            #expect(error?.code == .network)
        }
    }

    /// Cleaning at termination (`expiredOnly`) keeps a stale blob that can still be served stale, by its own window or
    /// by ``BlobCache/Configuration/servesStaleOnError``, so the relaunched app offline gets it; one that cannot goes,
    /// validators or not. (Every stale blob went: the windows that "survive a restart" did not survive the cleaning.)
    @Test(arguments: [
        ("max-age=60, stale-if-error=86400", false, true),
        ("max-age=60, stale-while-revalidate=300", false, true),
        ("max-age=60", true, true),
        ("max-age=60", false, false),
        ("max-age=60, stale-if-error=30", false, false),
        ("max-age=60, must-revalidate", true, false),
    ])
    func cleaningKeepsAStaleBlobThatCanStillBeServed(cacheControl: String, servesStaleOnError: Bool, kept: Bool)
        async throws
    {
        let origin = Origin(cacheControl: cacheControl)
        try await withFixture([("GET /a", origin.route)]) { fixture in
            // Given a blob stale for a minute, when the app cleans at termination
            do {
                let cache = try fixture.makeCache(servesStaleOnError: servesStaleOnError)
                _ = try await cache.fetch(from: fixture.url("a")) as Data
                fixture.clock.advance(by: .seconds(120))
                try cache.cleanPersistent()
                #expect(cache.persistentCount == (kept ? 1 : 0), "\(cacheControl)")
            }

            // Then the relaunched app offline is answered by it when it was kept
            let offline = try fixture.makeCache(
                servesStaleOnError: servesStaleOnError,
                transport: TestTransport(.offline)
            )
            let fetched = try? await offline.fetchWithLayer(from: fixture.url("a"))
            #expect(fetched?.origin == (kept ? .stale : nil), "\(cacheControl)")
            await offline.waitForBackgroundRefreshes()
        }
    }

    /// RFC 5861 bounds how stale a blob may be served: a response already 70 s stale when it came (an `Age` of 130 s
    /// against a lifetime of 60 s, as a CDN relays it) has 30 s left of a 100 s window. (The window ran from the
    /// download, and the blob was served up to 170 s stale.)
    @Test func aResponseStaleOnArrivalHasSpentThatMuchOfItsWindow() async throws {
        let failing = Locked(false)
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { _ in
            if failing.withLock({ $0 }) { return ServerReply(status: 503) }
            let headers = ["Cache-Control": "max-age=60, stale-if-error=100", "Age": "130"]
            return ServerReply(status: 200, headers: headers, body: Data("v1".utf8))
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .zero)
            failing.withLock { $0 = true }

            fixture.clock.advance(by: .seconds(29))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .stale)
            fixture.clock.advance(by: .seconds(2))
            let error = await strataError { _ = try await cache.fetch(from: fixture.url("a")) as Data }
            #expect(error?.httpFailure?.status == 503)
        }
    }

    /// RFC 5861, section 4: the window covers what would be a 500, 502, 503 or 504; a client error, or a 5xx
    /// that says the request itself is wrong (501 Not Implemented, 505 HTTP Version Not Supported), is not hidden.
    @Test(arguments: [404, 501, 505])
    func anErrorOtherThanAnOutageIsNeverHiddenByTheWindow(status: Int) async throws {
        let failing = Locked(false)
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { _ in
            if failing.withLock({ $0 }) { return ServerReply(status: status) }
            return ServerReply(status: 200, headers: ["Cache-Control": "max-age=60, stale-if-error=100"])
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .seconds(70))
            failing.withLock { $0 = true }

            let error = await strataError { _ = try await cache.fetch(from: fixture.url("a")) as Data }

            #expect(error?.httpFailure?.status == status)
        }
    }

    @Test func bothWindowsServeInTurn() async throws {
        let origin = Origin(cacheControl: "max-age=60, stale-while-revalidate=30, stale-if-error=300")
        try await withFixture([("GET /a", origin.route)]) { fixture in
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .zero)
            origin.fail()

            // Inside stale-while-revalidate: at once, the failed background revalidation unseen
            fixture.clock.advance(by: .seconds(70))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .stale)
            await cache.waitForBackgroundRefreshes()
            // Past it, inside stale-if-error: after the failed revalidation
            fixture.clock.advance(by: .seconds(100))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .stale)
            #expect(cache.backgroundRefreshCount == 0)
            #expect(fixture.server.requestCount(path: "/a") == 3)
        }
    }

    // MARK: - The record

    @Test func aRecordKeepsItsRevalidationWindowAndEarlierRecordsStillRead() throws {
        var record = FreshnessRecord(
            freshUntil: Date(timeIntervalSince1970: 1_000),
            lifetime: 60,
            staleIfError: nil,
            mustRevalidate: false,
            noCache: false,
            contentHash: 7,
            staleWhileRevalidate: 30
        )
        let encoded = record.encoded()
        #expect(encoded.count == 45)
        #expect(FreshnessRecord.decode(encoded) == record)
        var badFlag = encoded
        badFlag[44] = 0
        #expect(FreshnessRecord.decode(badFlag) == nil)
        var infinite = encoded
        let infinity = withUnsafeBytes(of: Double.infinity.bitPattern.littleEndian) { Data($0) }
        infinite.replaceSubrange(36..<44, with: infinity)
        #expect(FreshnessRecord.decode(infinite) == nil)

        record.staleWhileRevalidate = nil
        #expect(record.encoded().count == 36)
        #expect(FreshnessRecord.decode(record.encoded()) == record)
    }

    // MARK: - A 304's own directives

    /// A 304 that sends `Cache-Control` replaces the stored stale-serving directives (RFC 9111, section 4.3.4): a
    /// blob stored with day-long windows, renewed by a 304 saying `must-revalidate` or `no-cache`, is never served
    /// stale again — the 503 that follows is thrown.
    @Test(arguments: ["max-age=0, must-revalidate", "no-cache"])
    func aNotModifiedsOwnCacheControlReplacesTheStoredStaleWindows(notModified: String) async throws {
        let failing = Locked(false)
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            if failing.withLock({ $0 }) { return ServerReply(status: 503) }
            if request.headers["if-none-match"] == "\"v1\"" {
                return ServerReply(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": notModified])
            }
            let control = "max-age=60, stale-while-revalidate=86400, stale-if-error=86400"
            return ServerReply(
                status: 200,
                headers: ["Cache-Control": control, "ETag": "\"v1\""],
                body: Data("v1".utf8)
            )
        }
        try await withFixture([("GET /a", route)]) { fixture in
            // Given a stale blob revalidated (in the background, inside its window) by the 304
            let cache = try await Self.cacheAfterOneDownload(fixture, elapsed: .seconds(61))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .stale)
            await cache.waitForBackgroundRefreshes()
            #expect(fixture.server.requests.last?.headers["if-none-match"] == "\"v1\"")

            // When the server fails, within the stored windows
            failing.withLock { $0 = true }
            fixture.clock.advance(by: .seconds(10))
            let error = await strataError { _ = try await cache.fetch(from: fixture.url("a")) as Data }

            // Then the stale blob is not served
            #expect(error?.httpFailure?.status == 503)
        }
    }
}
