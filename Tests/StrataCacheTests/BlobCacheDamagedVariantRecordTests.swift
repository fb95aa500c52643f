import Foundation
import LoopbackServer
import Strata
import StrataFile
import StrataTestSupport
import Testing

@testable import StrataCache

/// A blob whose freshness record cannot be read may have answered a request that varied (`Vary`): the persistent layer
/// cannot tell whom it answers, so it serves it to nobody without a full request to the server, and keeps it on disk.
struct BlobCacheDamagedVariantRecordTests {
    /// A server whose answer varies on `Accept-Language`, fresh for a minute, with validators that are the same for
    /// every language (a row's update time): it answers any conditional request `304`, and fails every request once
    /// `failing` is set.
    private static func route(failing: Locked<Bool>) -> @Sendable (ServerRequest) async throws -> ServerReply {
        { request in
            if failing.withLock({ $0 }) { return ServerReply(status: 503, headers: [:], body: Data()) }
            let validators = ["ETag": "\"same\"", "Last-Modified": "Mon, 02 Nov 2026 10:00:00 GMT"]
            if request.headers["if-none-match"] != nil || request.headers["if-modified-since"] != nil {
                return ServerReply(status: 304, headers: validators, body: Data())
            }
            let language = request.headers["accept-language"] ?? "nobody"
            return ServerReply(
                status: 200,
                headers: validators.merging(["Cache-Control": "max-age=60", "Vary": "Accept-Language"]) { $1 },
                body: Data("answer for \(language)".utf8)
            )
        }
    }

    /// Cuts the last byte off the freshness record in the entry of `key` on the fixture's folder: a format-3 record
    /// whose variant no longer reads.
    private static func damageRecord(of key: String, in fixture: BlobCacheFixture) throws {
        let blobs = try FileDataSource(
            configuration: .init(location: .url(fixture.folder), identifier: "blobs", clock: fixture.clock)
        )
        let info = try #require(blobs.info(forKey: key))
        let attributes = try #require(info.attributes)
        try #require(FreshnessRecord.decode(attributes)?.variant != nil)
        let damaged = attributes.dropLast()
        try #require(FreshnessRecord.decode(damaged) == nil)
        let renewed = try blobs.renewMetadata(
            EntryMetadata(
                expiresAt: info.expiresAt,
                freshUntil: info.freshUntil,
                eTag: info.eTag,
                lastModified: info.lastModified
            ),
            attributes: Data(damaged),
            ifContentHash: info.contentHash,
            forKey: key
        )
        try #require(renewed)
    }

    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aBlobWhoseVariedRecordIsDamagedIsServedToNobodyWithoutAFullRequest(serverFails: Bool) async throws {
        let failing = Locked(false)
        try await withFixture([("GET /greeting", Self.route(failing: failing))]) { fixture in
            let key = fixture.url("greeting").absoluteString
            // Given the English answer stored on the folder, then its record damaged, and the blob stale
            do {
                let english = try fixture.makeCache(headers: ["Accept-Language": "en"])
                let stored = try await english.fetchWithLayer(from: fixture.url("greeting"))
                try #require(stored.data == Data("answer for en".utf8))
            }
            try Self.damageRecord(of: key, in: fixture)
            fixture.clock.advance(by: .seconds(120))
            failing.withLock { $0 = serverFails }

            // When a cache that asks for French (and may serve stale on an outage) fetches the blob
            let french = try fixture.makeCache(servesStaleOnError: true, headers: ["Accept-Language": "fr"])
            let fetched = await Result(catching: { try await french.fetchWithLayer(from: fixture.url("greeting")) })

            if serverFails {
                // Then an outage is the fetch's error, not the English blob, and the blob stays on disk
                #expect(throws: StrataError.self) { try fetched.get() }
                #expect(french.blobs.info(forKey: key) != nil)
            } else {
                // Then the server was asked without validators and the French answer came
                let answer = try fetched.get()
                #expect(answer.data == Data("answer for fr".utf8) && answer.origin == .network)
                #expect(fixture.server.requestCount(path: "/greeting") == 2)
            }
        }
    }
}
