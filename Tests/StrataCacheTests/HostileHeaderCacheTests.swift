import Foundation
import LoopbackServer
import Strata
import StrataTestSupport
import Testing

@testable import StrataCache

/// A BlobCache fed absurd caching headers by a real server: it neither crashes nor caches for longer than
/// the headers can mean.
struct HostileHeaderCacheTests {
    static let hugeYear = "Sun, 06 Nov 1000000000000 08:49:37 GMT"

    /// Dates with a year of 10¹² are invalid, so `Expires` means "already expired": the blob is served, then
    /// fetched again.
    @Test func absurdDatesMakeADownloadStaleAtOnce() async throws {
        let headers = [
            "Expires": Self.hugeYear, "Date": Self.hugeYear, "Last-Modified": Self.hugeYear,
            "Age": "1000000000000000000000000000000",
        ]
        try await withFixture([("GET /a", reply("alpha", headers: headers))]) { fixture in
            let cache = try fixture.makeCache(
                ephemeral: .init(initialLifetime: .seconds(3_600)),
                persistent: .init(initialLifetime: .seconds(3_600))
            )

            let first = try await cache.fetchWithLayer(from: fixture.url("a"))
            let second = try await cache.fetchWithLayer(from: fixture.url("a"))

            #expect(first.data == Data("alpha".utf8))
            #expect(first.origin == .network && second.origin == .network)
            #expect(fixture.server.requestCount(path: "/a") == 2)
        }
    }

    /// A `max-age` of 10³⁰ seconds saturates at 2³¹ seconds (about 68 years): fresh after ten years, with no
    /// overflow on the way.
    @Test func anAbsurdMaxAgeSaturates() async throws {
        let headers = ["Cache-Control": "max-age=1000000000000000000000000000000"]
        try await withFixture([("GET /a", reply("alpha", headers: headers))]) { fixture in
            let cache = try fixture.makeCache()
            _ = try await cache.fetch(from: fixture.url("a"))

            fixture.clock.advance(by: .seconds(10 * 365 * 86_400))

            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin != .network)
            #expect(fixture.server.requestCount(path: "/a") == 1)
        }
    }

    /// A 503 whose `Retry-After` has a year of 10¹² is a retryable error without a wait.
    @Test func anAbsurdRetryAfterIsIgnored() async throws {
        let route = reply("busy", headers: ["Retry-After": Self.hugeYear], status: 503)
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try fixture.makeCache()

            let error = await strataError { _ = try await cache.fetch(from: fixture.url("a")) }

            #expect(error?.code == .unexpectedResponse)
            #expect(error?.httpFailure?.status == 503)
            #expect(error?.isRetryable == true)
            #expect(error?.suggestedRetryDelay == nil)
        }
    }
}

/// A freshness record whose lifetime no `Duration` can hold (only a damaged or forged file has one) is no
/// record: the blob is stale, and nothing traps. A record made with one is written within the bounds its reader takes.
struct FreshnessRecordBoundsTests {
    @Test(arguments: [1e300, -1e300, 1e19])
    func anUnrepresentableLifetimeIsNoRecord(lifetime: Double) throws {
        let record = FreshnessRecord(
            freshUntil: Date(timeIntervalSince1970: 1_700_000_000),
            lifetime: lifetime,
            staleIfError: nil,
            mustRevalidate: false,
            noCache: false,
            contentHash: 0
        )
        // The lifetime's 8 bytes follow the format byte and the fresh-until date
        var forged = [UInt8](record.encoded())
        withUnsafeBytes(of: lifetime.bitPattern.littleEndian) { forged.replaceSubrange(9..<17, with: $0) }
        #expect(FreshnessRecord.decode(Data(forged)) == nil)
        #expect(FreshnessRecord.decode(try JSONEncoder().encode(record)) == nil)
        #expect(FreshnessRecord.decode(record.encoded())?.lifetime == (lifetime > 0 ? 1e18 : -1e18))
        var valid = record
        valid.lifetime = 2_147_483_648
        #expect(FreshnessRecord.decode(valid.encoded()) == valid)
    }
}
