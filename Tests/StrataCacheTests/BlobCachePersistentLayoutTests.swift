import Foundation
import LoopbackServer
import Strata
import StrataFile
import Testing

@testable import StrataCache

/// The persistent layer's layout: one file per blob with its freshness record inside, renewed in place by a
/// `304` or an extension; records of earlier versions still honoured.
struct BlobCachePersistentLayoutTests {
    /// The folder of the freshness store earlier versions kept beside the blobs.
    private func legacyFreshnessFolder(_ fixture: BlobCacheFixture) -> String {
        fixture.folder.appendingPathComponent("blobs.freshness").path
    }

    /// The file system's identity of the one blob file, to tell a rewrite in place from a replaced file.
    private func blobFileNumber(_ fixture: BlobCacheFixture) throws -> Int? {
        let files = try fixture.blobFiles()
        guard files.count == 1, let file = files.first else { return nil }
        return try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int
    }

    @Test func aDownloadIsOneFileWithItsRecordInsideAndADiskHitNeedsNoOther() async throws {
        try await withFixture([("GET /a", reply("alpha", headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            let cache = try fixture.makeCache()
            _ = try await cache.fetch(from: fixture.url("a")) as Data

            #expect(try fixture.blobFiles().count == 1)
            #expect(!FileManager.default.fileExists(atPath: legacyFreshnessFolder(fixture)))
            let key = fixture.url("a").absoluteString
            let info = try #require(cache.blobs.info(forKey: key))
            let record = try #require(info.attributes.flatMap(FreshnessRecord.decode))
            #expect(record.freshUntil == fixture.clock.now().addingTimeInterval(60))

            // A disk hit within the freshness, then none after it
            cache.purgeEphemeral()
            fixture.clock.advance(by: .seconds(59))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            cache.purgeEphemeral()
            fixture.clock.advance(by: .seconds(1))
            #expect(!cache.contains(fixture.url("a")))
            #expect(fixture.server.requestCount(path: "/a") == 1)
        }
    }

    @Test func a304RenewsTheRecordInTheBlobsOwnEntryWithoutReplacingItsFile() async throws {
        let version = Locked(1)
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            let current = version.withLock { $0 }
            if request.headers["if-none-match"] == "\"v\(current)\"" {
                return ServerReply(status: 304, headers: ["ETag": "\"v\(current)\"", "Cache-Control": "max-age=120"])
            }
            return ServerReply(
                status: 200,
                headers: ["ETag": "\"v\(current)\"", "Cache-Control": "max-age=60"],
                body: Data("body \(current)".utf8)
            )
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try fixture.makeCache()
            _ = try await cache.fetch(from: fixture.url("a")) as Data

            let key = fixture.url("a").absoluteString
            let written = try #require(try blobFileNumber(fixture))
            let hash = try #require(cache.blobs.info(forKey: key)?.contentHash)

            // A 304 renews the record in the blob's entry: the same file, the same data, a new freshness
            fixture.clock.advance(by: .seconds(61))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .revalidated)
            #expect(try blobFileNumber(fixture) == written)
            let info = try #require(cache.blobs.info(forKey: key))
            #expect(info.contentHash == hash)
            let record = try #require(info.attributes.flatMap(FreshnessRecord.decode))
            #expect(record.freshUntil == fixture.clock.now().addingTimeInterval(120))
            #expect(!FileManager.default.fileExists(atPath: legacyFreshnessFolder(fixture)))
            cache.purgeEphemeral()
            fixture.clock.advance(by: .seconds(119))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)

            // A new version downloaded replaces the blob, with the record of its own response
            version.withLock { $0 = 2 }
            fixture.clock.advance(by: .seconds(2))
            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))
            #expect(fetched.origin == .network && fetched.data == Data("body 2".utf8))
            let replaced = try #require(cache.blobs.info(forKey: key)?.attributes.flatMap(FreshnessRecord.decode))
            #expect(replaced.freshUntil == fixture.clock.now().addingTimeInterval(60))
            cache.purgeEphemeral()
            fixture.clock.advance(by: .seconds(59))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            #expect(fixture.server.requestCount(path: "/a") == 3)
        }
    }

    @Test func aBlobAndAJSONRecordWrittenByAnEarlierVersionAreMovedIntoOneEntryAndServedFresh() async throws {
        try await withFixture([("GET /a", reply("network"))]) { fixture in
            let key = fixture.url("a").absoluteString
            let now = fixture.clock.now()
            // Given the earlier layout: a blob without attributes and a JSON record in the freshness store
            do {
                let blobs = try FileDataSource(
                    configuration: .init(location: .url(fixture.folder), identifier: "blobs", clock: fixture.clock)
                )
                let records = try FileDataSource(
                    configuration: .init(
                        location: .url(fixture.folder),
                        identifier: "blobs.freshness",
                        clock: fixture.clock
                    )
                )
                try blobs.setValue(Data("legacy".utf8), forKey: key)
                let hash = try #require(blobs.info(forKey: key)?.contentHash)
                let json = """
                    {"freshUntil":\(now.addingTimeInterval(300).timeIntervalSinceReferenceDate),"lifetime":300,\
                    "mustRevalidate":false,"noCache":false,"contentHash":\(hash)}
                    """
                try records.setValue(Data(json.utf8), forKey: key)
            }

            // When a cache opens the folder, then the record moves into the blob's entry and the old store is empty
            let cache = try fixture.makeCache()
            let moved = try #require(cache.blobs.info(forKey: key)?.attributes.flatMap(FreshnessRecord.decode))
            #expect(moved.freshUntil == now.addingTimeInterval(300))
            let left = try FileManager.default.contentsOfDirectory(atPath: legacyFreshnessFolder(fixture))
            #expect(!left.contains { $0.hasSuffix(".strata") })
            // And the blob is fresh on disk until the record says otherwise
            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))
            #expect(fetched.origin == .file && fetched.data == Data("legacy".utf8))
            fixture.clock.advance(by: .seconds(300))
            cache.purgeEphemeral()
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .network)
            #expect(fixture.server.requestCount(path: "/a") == 1)
        }
    }

    /// A `304` about another version than the stored blob's (RFC 9111, section 4.3.4) does not renew the blob — it
    /// labelled the old bytes with the new tag, fresh for the 304's lifetime, and the new version never came: the
    /// new version is fetched in full.
    @Test func aNotModifiedAboutAnotherVersionFetchesThatVersion() async throws {
        let version = Locked("v1")
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            let current = version.withLock { $0 }
            let headers = ["ETag": "\"\(current)\"", "Cache-Control": "max-age=60"]
            if request.headers["if-none-match"] != nil, current == "v2" {
                return ServerReply(status: 304, headers: headers)
            }
            return ServerReply(status: 200, headers: headers, body: Data("body \(current)".utf8))
        }
        try await withFixture([("GET /a", route)]) { fixture in
            // Given a stale blob of v1, and a server at v2 that answers any conditional request 304 with v2's tag
            let cache = try fixture.makeCache()
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            fixture.clock.advance(by: .seconds(61))
            cache.purgeEphemeral()
            version.withLock { $0 = "v2" }

            // When it is fetched
            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))

            // Then v2 comes from the network, stored with its own tag
            #expect(fetched.origin == .network && fetched.data == Data("body v2".utf8))
            #expect(cache.blobs.info(forKey: fixture.url("a").absoluteString)?.eTag == "\"v2\"")
            #expect(fixture.server.requests.map { $0.headers["if-none-match"] } == [nil, "\"v1\"", nil])
        }
    }

    /// A store of the user's that merely has the old freshness store's name (`<identifier>.freshness`) is no
    /// freshness store: an entry that is not a record says so, and the cache leaves every entry of it alone — not
    /// even marked as read (the records read before the first value that is not one were marked most recently used,
    /// reordering the user's store).
    @Test func aStoreOfTheUsersNamedLikeTheOldFreshnessStoreKeepsEveryEntry() async throws {
        try await withFixture([("GET /a", reply("network"))]) { fixture in
            // Given a user's own file store at that name, holding a value and something that is a record
            let key = fixture.url("a").absoluteString
            let configuration = FileDataSource.Configuration(
                location: .url(fixture.folder),
                identifier: "blobs.freshness",
                clock: fixture.clock
            )
            let record = FreshnessRecord(
                freshUntil: fixture.clock.now(),
                lifetime: 60,
                staleIfError: nil,
                mustRevalidate: false,
                noCache: false,
                contentHash: 1
            )
            let before: [String]
            let lastAccess: Date?
            do {
                let mine = try FileDataSource(configuration: configuration)
                try mine.setValue(Data("my notes".utf8), forKey: "notes")
                try mine.setValue(record.encoded(), forKey: key)
                before = mine.keysByRecency
                lastAccess = mine.info(forKey: "notes")?.lastAccess
            }
            fixture.clock.advance(by: .seconds(10))

            // When a cache opens the folder beside it (reading the record first, then the notes)
            _ = try fixture.makeCache()

            // Then the user's store holds both entries as they were, in the order they were used, neither read
            let mine = try FileDataSource(configuration: configuration)
            #expect(before == [key, "notes"])
            #expect(mine.keysByRecency == before)
            #expect(mine.info(forKey: "notes")?.lastAccess == lastAccess)
            #expect(mine.value(forKey: "notes") == Data("my notes".utf8))
            #expect(mine.value(forKey: key) == record.encoded())
        }
    }

    @Test func theMemoryLayerDropsABlobAtExactlyItsExpiry() async throws {
        try await withFixture([("GET /a", reply("alpha", headers: ["Cache-Control": "max-age=30"]))]) { fixture in
            let cache = try fixture.makeCache()
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            fixture.clock.advance(by: .milliseconds(29_999))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            fixture.clock.advance(by: .milliseconds(1))
            #expect(cache.ephemeralCount == 1)
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .network)
        }
    }

    @Test func freshnessRecordsRoundTripAndDamagedOnesAreRefused() throws {
        let record = FreshnessRecord(
            freshUntil: Date(timeIntervalSince1970: 1_234_567.25),
            lifetime: 86_400,
            staleIfError: 30,
            mustRevalidate: true,
            noCache: false,
            contentHash: 0xDEAD_BEEF_0123_4567
        )
        let encoded = record.encoded()
        #expect(encoded.count == 36)
        #expect(FreshnessRecord.decode(encoded) == record)
        var without = record
        without.staleIfError = nil
        #expect(FreshnessRecord.decode(without.encoded()) == without)

        var badFlag = encoded
        badFlag[26] = 7
        #expect(FreshnessRecord.decode(badFlag) == nil)
        var infinite = encoded
        infinite.replaceSubrange(1..<9, with: withUnsafeBytes(of: Double.infinity.bitPattern.littleEndian) { Data($0) })
        #expect(FreshnessRecord.decode(infinite) == nil)
        #expect(FreshnessRecord.decode(Data()) == nil)
        #expect(FreshnessRecord.decode(Data(repeating: 1, count: 35)) == nil)
    }
}
