import Foundation
import LoopbackServer
import Strata
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataCache

/// ``BlobCache/PersistentWrites/behind``: downloads written after the fetch returns, served meanwhile.
struct BlobCacheWriteBehindTests {
    /// Raised by any task that sees a failure.
    final class FailureFlag: Sendable {
        private let raised = Atomic(false)
        var isRaised: Bool { raised.load(ordering: .acquiring) }
        func raise() { raised.store(true, ordering: .releasing) }
    }

    /// Holds the cache's write queue until `release()`, so that a write is deterministically still queued, without
    /// a thread blocked (a held write that blocked a thread of the system's pool for each hold took one from every
    /// other test while several ran at once).
    final class QueueHold: Sendable {
        private let writes: WriteBehind<String, BlobCache.QueuedWrite>
        private let released = Atomic(false)

        init(_ cache: BlobCache) {
            writes = cache.writes
            writes.hold()
        }

        /// Lets the queue drain; once only.
        func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            writes.releaseHold()
        }

        deinit { release() }
    }

    /// `count` URLs of the fixture's server whose keys fall in one stripe of the write stamps, so share one turn.
    ///
    /// A download reserves its room in the write-behind queue before its write-back takes its key's turn
    /// (``CacheWriteTurns``): a fetch of another URL of the stripe waits for room beside it, not for the turn of a
    /// fetch waiting for room. Before, it waited for that turn, uncounted, and a test counting the fetches waiting for
    /// room waited for ever (keys fall in stripes by their hash, seeded per process: 6 URLs shared a stripe in about
    /// one run of 17).
    private static func urlsOfOneStripe(_ count: Int, _ fixture: BlobCacheFixture) -> [URL] {
        let stripe = { (url: URL) in url.absoluteString.stripe(among: CacheWriteStamps.stripeCount) }
        let first = stripe(fixture.url("blob-0"))
        return Array((0...).lazy.map { fixture.url("blob-\($0)") }.filter { stripe($0) == first }.prefix(count))
    }

    private func makeCache(_ fixture: BlobCacheFixture) throws -> BlobCache {
        try fixture.makeCache(persistent: .init(writes: .behind))
    }

    @Test func aQueuedDownloadIsServedFromTheQueueAndWrittenLater() async throws {
        try await withFixture([("GET /a", reply("alpha", headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            let cache = try makeCache(fixture)
            let hold = QueueHold(cache)

            // When a download returns while its write waits
            let first = try await cache.fetchWithLayer(from: fixture.url("a"))
            #expect(first.origin == .network && first.data == Data("alpha".utf8))
            #expect(try fixture.blobFiles().isEmpty)
            #expect(cache.contains(fixture.url("a")))

            // Then, purged from memory, it is served from the queue without a request
            cache.purgeEphemeral()
            let second = try await cache.fetchWithLayer(from: fixture.url("a"))
            #expect(second.origin == .file && second.data == first.data)
            #expect(fixture.server.requestCount(path: "/a") == 1)

            // And once the queue runs, it is on disk with its freshness
            hold.release()
            await cache.flush()
            #expect(try fixture.blobFiles().count == 1)
            #expect(cache.persistentCount == 1)
            cache.purgeEphemeral()
            fixture.clock.advance(by: .seconds(59))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            #expect(cache.persistentWriteFailures == 0)
        }
    }

    @Test func aQueuedDownloadPastItsFreshnessIsWrittenBeforeRevalidation() async throws {
        try await withFixture([("GET /a", BlobCacheHTTPTests.eTagRoute)]) { fixture in
            let cache = try makeCache(fixture)
            let hold = QueueHold(cache)
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            fixture.clock.advance(by: .seconds(61))
            #expect(!cache.contains(fixture.url("a")))

            // The revalidation waits for the write (released from another thread, in whichever order the two
            // run), then sends the blob's ETag and gets a 304
            DispatchQueue.global().async { hold.release() }
            let revalidated = try await cache.fetchWithLayer(from: fixture.url("a"))
            #expect(revalidated.origin == .revalidated)
            #expect(fixture.server.requests.last?.headers["if-none-match"] == "\"v1\"")
        }
    }

    /// What `PersistentWrites.behind` documents: a released cache finishes its queued writes, and its folder is
    /// claimed until they are done.
    @Test func aReleasedCacheKeepsItsFolderUntilItsQueuedWritesAreDone() async throws {
        try await withFixture([("GET /a", reply("alpha", headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            let hold = try await releasedCacheWithAQueuedWrite(fixture)

            let claimed = #expect(throws: StrataError.self) { try makeCache(fixture) }
            #expect(claimed?.code == .alreadyInUse)

            // Once the queue runs, the blob is written and the folder given up (a hang guard, not a timed wait)
            hold.release()
            let deadline = ContinuousClock.now.advanced(by: .seconds(30))
            var reopened: BlobCache?
            while reopened == nil, ContinuousClock.now < deadline {
                reopened = try? makeCache(fixture)
                try await Task.sleep(for: .milliseconds(1))  // not a spin: see `poll(until:)`
            }
            let cache = try #require(reopened)
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            #expect(fixture.server.requestCount(path: "/a") == 1)
        }
    }

    /// What `flush()` documents: once it returns, a released cache gives its folder up at once. Before, the queue's
    /// drain resumed `flush()` while its last write, which holds the cache, was still in its hands: the folder could
    /// still be claimed when the caller opened it again.
    @Test func aFlushedCacheLetsItsFolderBeOpenedAgainAtOnce() async throws {
        try await withFixture([("GET /a", reply("alpha", headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            for round in 0..<100 {
                var cache: BlobCache? = try makeCache(fixture)
                let url = try #require(URL(string: fixture.url("a").absoluteString + "?round=\(round)"))
                _ = try await cache?.fetch(from: url) as Data?
                await cache?.flush()
                cache = nil
                #expect(throws: Never.self, "round \(round)") { _ = try makeCache(fixture) }
            }
        }
    }

    /// A cache whose one fetch's write waits behind `hold`, released.
    private func releasedCacheWithAQueuedWrite(_ fixture: BlobCacheFixture) async throws -> QueueHold {
        let cache = try makeCache(fixture)
        let hold = QueueHold(cache)
        _ = try await cache.fetch(from: fixture.url("a")) as Data
        return hold
    }

    @Test func removeAndRemoveAllDropQueuedWrites() async throws {
        try await withFixture([("GET /*", reply("body", headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            let cache = try makeCache(fixture)
            let hold = QueueHold(cache)
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            _ = try await cache.fetch(from: fixture.url("b")) as Data
            _ = try await cache.fetch(from: fixture.url("c")) as Data

            // remove waits for the queue, so it is released from a thread outside the task pool
            DispatchQueue.global().async { hold.release() }
            try cache.remove(fixture.url("a"))
            await cache.flush()
            #expect(!cache.contains(fixture.url("a")))
            #expect(cache.contains(fixture.url("b")))
            #expect(try fixture.blobFiles().count == 2)

            let second = QueueHold(cache)
            _ = try await cache.fetch(from: fixture.url("d")) as Data
            second.release()
            try cache.removeAll()
            await cache.flush()
            #expect(try fixture.blobFiles().isEmpty)
            #expect(!cache.contains(fixture.url("d")))
        }
    }

    @Test func aFailedWriteIsCountedAndTheBlobStaysInMemory() async throws {
        try await withFixture([("GET /a", reply("alpha", headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            let cache = try makeCache(fixture)
            // The layer's folder becomes a file: every write in it fails
            let folder = fixture.folder.appendingPathComponent("blobs")
            try FileManager.default.removeItem(at: folder)
            try Data().write(to: folder)

            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))
            await cache.flush()

            #expect(fetched.origin == .network && fetched.data == Data("alpha".utf8))
            #expect(cache.persistentWriteFailures == 1)
            #expect(cache.persistentCount == 0)
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
        }
    }

    /// The layer's `writeBehindLimit` holds downloads back: under a limit of 10, with the queue held, one fetch of
    /// 6 bytes is queued (it goes alone: with its entry's overhead it costs more than the limit) and the next two wait
    /// for room. (Under CI's close-watching and EINTR runs it took 32 to 41 s: its time limit guards against a hang,
    /// not a speed.)
    @Test(.timeLimit(.minutes(3))) func fetchesStayWithinTheConfiguredLimit() async throws {
        try await withFixture([("GET /*", reply("123456", headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            let cache = try fixture.makeCache(persistent: .init(writes: .behind, writeBehindLimit: 10))
            #expect(cache.configuration.persistent.writeBehindLimit == 10)
            let hold = QueueHold(cache)

            let fetches = Self.urlsOfOneStripe(3, fixture).map { url in
                Task { try await cache.fetch(from: url) as Data }
            }
            // (the first fetch gives its room back just after its write is queued)
            await poll { cache.writes.waitingForRoom >= 2 && cache.writes.reservedCost == 0 }
            #expect(cache.writes.queuedCost == Blob.footprint(ofBytes: 6))

            hold.release()
            for fetch in fetches { #expect(try await fetch.value == Data("123456".utf8)) }
            await cache.flush()
            #expect(try fixture.blobFiles().count == 3)
            #expect(cache.writes.queuedCost == 0 && cache.writes.reservedCost == 0)
        }
    }

    /// The fetches waiting for room hold their blobs too, up to the limit between them, and at least a floor (64 MiB
    /// by default, 64 KiB here): with a limit of 0 (one write at a time) and the queue held, a 16 KiB fetch is queued,
    /// four wait (64 KiB), and a sixth is not stored on disk (a failed write) and returns at once — before, every fetch
    /// waited, for as long as the disk stalled, each holding its whole body. (With the default floor it took six
    /// downloads of 16 MiB, which under CI's EINTR run beside the whole suite took over three minutes.)
    @Test func fetchesWaitingForRoomHoldAtMostTheirLimit() async throws {
        // 16 KiB held in memory each, the entry's overhead counted
        let body = String(repeating: "x", count: (16 << 10) - Blob.entryOverhead)
        try await withFixture([("GET /*", reply(body, headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            var persistent = BlobCache.PersistentLayer(writes: .behind, writeBehindLimit: 0)
            persistent.leastWaitingLimit = 64 << 10
            let cache = try fixture.makeCache(persistent: persistent)
            let hold = QueueHold(cache)

            let urls = Self.urlsOfOneStripe(6, fixture)
            // (a fetch that fails ends the wait below, and the test, with its error)
            let failed = FailureFlag()
            let fetches = urls.map { url in
                Task {
                    do {
                        return try await cache.fetch(from: url) as Data
                    } catch {
                        failed.raise()
                        throw error
                    }
                }
            }
            let writes = cache.writes
            while writes.waitingForRoom < 4 || writes.reservedCost > 0 || cache.persistentWriteFailures < 1 {
                if failed.isRaised { break }
                try Task.checkCancellation()  // the time limit ends the wait
                try await Task.sleep(for: .milliseconds(1))  // not a spin: see `poll(until:)`
            }
            #expect(cache.writes.queuedCost == 16 << 10)

            hold.release()
            for fetch in fetches { #expect(try await fetch.value.count == body.utf8.count) }
            await cache.flush()
            #expect(try fixture.blobFiles().count == 5)
            #expect(cache.persistentWriteFailures == 1)
            #expect(cache.writes.queuedCost == 0 && cache.writes.reservedCost == 0)
        }
    }

    /// A download reserves its room in the queue before its write-back (ahead of its key's turn): one whose
    /// write-back stores nothing (the blob was removed while it was on its way) gives the room back as the fetch
    /// ends, and the next fetch is not held back by it.
    @Test(.timeLimit(.minutes(1))) func aDownloadThatIsNotStoredGivesItsRoomBack() async throws {
        let (arrived, release) = (Gate(), Gate())
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            if request.path == "/held" {
                arrived.open()
                await release.wait()
            }
            return ServerReply(status: 200, headers: ["Cache-Control": "max-age=60"], body: Data("123456".utf8))
        }
        try await withFixture([("GET /*", route)]) { fixture in
            let cache = try fixture.makeCache(persistent: .init(writes: .behind, writeBehindLimit: 0))
            let held = fixture.url("held")
            let fetch = Task { try await cache.fetch(from: held) as Data }
            await arrived.wait()
            try cache.remove(held)
            release.open()
            #expect(try await fetch.value == Data("123456".utf8))
            #expect(cache.writes.reservedCost == 0 && cache.writes.waitingForRoom == 0)

            _ = try await cache.fetch(from: fixture.url("next")) as Data
            await cache.flush()
            #expect(try fixture.blobFiles().count == 1)
            #expect(cache.persistentWriteFailures == 0)
            #expect(cache.writes.queuedCost == 0 && cache.writes.reservedCost == 0)
        }
    }

    /// A download that will never be written (`no-store`, `Vary: *`) reserves no room in the queue: with the queue
    /// full and held, its fetch returns at once. (Before, it waited for room among the downloads to be written, for as
    /// long as the disk took to drain them.)
    @Test(arguments: [["Cache-Control": "no-store"], ["Cache-Control": "max-age=60", "Vary": "*"]])
    func aDownloadThatWillNotBeStoredDoesNotWaitForRoom(headers: [String: String]) async throws {
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            let headers = request.path == "/ahead" ? ["Cache-Control": "max-age=60"] : headers
            return ServerReply(status: 200, headers: headers, body: Data("123456".utf8))
        }
        try await withFixture([("GET /*", route)]) { fixture in
            // Given a write queued and held, so the next download to be written waits for room
            let cache = try fixture.makeCache(persistent: .init(writes: .behind, writeBehindLimit: 0))
            let hold = QueueHold(cache)
            _ = try await cache.fetch(from: fixture.url("ahead")) as Data

            // When a response that must not be stored is fetched
            let returned = Atomic(false)
            let fetch = Task {
                defer { returned.store(true, ordering: .releasing) }
                return try await cache.fetch(from: fixture.url("unstored")) as Data
            }
            await poll { returned.load(ordering: .acquiring) || cache.writes.waitingForRoom > 0 }

            // Then it returns without waiting for room
            #expect(cache.writes.waitingForRoom == 0, "\(headers)")
            hold.release()
            #expect(try await fetch.value == Data("123456".utf8))
            await cache.flush()
            #expect(try fixture.blobFiles().count == 1)
            #expect(cache.persistentWriteFailures == 0)
        }
    }

    /// A background revalidation cancelled while its download waits for room leaves the stale blob on disk, as
    /// ``BlobCache/cancelBackgroundRefreshes()`` says: its `stale-if-error` fallback stays. (Before, the refused room
    /// queued the stale blob's removal.)
    @Test(.timeLimit(.minutes(1))) func aCancelledRefreshWaitingForRoomKeepsTheStaleBlob() async throws {
        let served = Atomic(0)
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            let version = request.path == "/a" ? served.add(1, ordering: .relaxed).newValue : 0
            let headers = ["Cache-Control": "max-age=60, stale-while-revalidate=30, stale-if-error=86400"]
            return ServerReply(status: 200, headers: headers, body: Data("v\(version)".utf8))
        }
        try await withFixture([("GET /*", route)]) { fixture in
            // Given a stale blob on disk, and a write queued and held, so the next download waits for room
            let cache = try fixture.makeCache(persistent: .init(writes: .behind, writeBehindLimit: 0))
            let stale = fixture.url("a")
            _ = try await cache.fetch(from: stale) as Data
            await cache.flush()
            let hold = QueueHold(cache)
            _ = try await cache.fetch(from: fixture.url("ahead")) as Data
            fixture.clock.advance(by: .seconds(70))

            // When its background revalidation downloads v2, waits for room, and is cancelled
            #expect(try await cache.fetchWithLayer(from: stale).origin == .stale)
            await poll { cache.writes.waitingForRoom >= 1 }
            cache.cancelBackgroundRefreshes()
            await cache.waitForBackgroundRefreshes()
            hold.release()
            await cache.flush()

            // Then the stale blob is still on disk
            #expect(served.load(ordering: .relaxed) == 2)
            #expect(cache.blobs.value(forKey: stale.absoluteString) == Data("v1".utf8))
        }
    }

    /// A stale blob a `304` renewed whose entry went meanwhile (evicted) is stored again from its key's turn: it does
    /// not wait for room there, where a download of the same stripe that waits for room would wait for that turn next.
    /// Before, with a limit of 0, the two waited for each other for good (and every later fetch of the stripe with
    /// them): the download was let in first, and its room left none for the renewal, which held the turn.
    @Test(.timeLimit(.minutes(1))) func aRenewalWhoseEntryWentDoesNotWaitForRoomInItsTurn() async throws {
        let (arrived, release) = (Gate(), Gate())
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            guard request.headers["if-none-match"] == nil else {
                arrived.open()
                await release.wait()
                return ServerReply(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"])
            }
            return ServerReply(
                status: 200,
                headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"],
                body: Data("123456".utf8)
            )
        }
        try await withFixture([("GET /*", route)]) { fixture in
            let cache = try fixture.makeCache(persistent: .init(writes: .behind, writeBehindLimit: 0))
            let urls = Self.urlsOfOneStripe(2, fixture)
            let (stale, download) = (urls[0], urls[1])
            // Given a stale blob on disk, with its validator
            _ = try await cache.fetch(from: stale) as Data
            await cache.flush()
            cache.memory.removeAll()
            // and a write queued and held, so the next download waits for room
            let hold = QueueHold(cache)
            _ = try await cache.fetch(from: fixture.url("ahead")) as Data

            // When the stale blob is revalidated, its entry evicted before the 304 comes back, while a download of the
            // same stripe waits for room
            let renewal = Task { try await cache.fetch(from: stale) as Data }
            await arrived.wait()
            let waiting = Task { try await cache.fetch(from: download) as Data }
            await poll { cache.writes.waitingForRoom >= 1 }
            try cache.blobs.removeValue(forKey: stale.absoluteString)
            release.open()

            // Then the renewal returns without waiting for room, and once the queue moves the download ends too
            #expect(try await renewal.value == Data("123456".utf8))
            hold.release()
            #expect(try await waiting.value == Data("123456".utf8))
            await cache.flush()
            #expect(cache.writes.queuedCost == 0 && cache.writes.reservedCost == 0)
        }
    }

    /// The fetches waiting for room may hold at least 64 MiB between them, whatever the limit.
    @Test(arguments: [0, 10, 64 << 20, 100 << 20])
    func theFetchesWaitingForRoomMayHoldAtLeast64MiB(limit: Int) async throws {
        try await withFixture([]) { fixture in
            let cache = try fixture.makeCache(persistent: .init(writes: .behind, writeBehindLimit: limit))
            #expect(cache.writes.waitingLimit == max(limit, 64 << 20))
        }
    }

    @Test func flushReturnsAtOnceWithNothingQueued() async throws {
        try await withFixture([]) { fixture in
            let cache = try makeCache(fixture)
            await cache.flush()
            #expect(cache.persistentWriteFailures == 0)
        }
    }
}
