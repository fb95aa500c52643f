import Foundation
import LoopbackServer
import Strata
import StrataTestSupport
import Testing

@testable import StrataCache

/// A blob read before `remove(_:)` or `removeAll()` never goes back into memory after it: a fetch that read the
/// disk before the removal and copies the blob up after it leaves memory as the removal left it.
struct BlobCacheRemovalTests {
    /// Holds one call of a layer, once armed, until ``release`` opens: a write of the memory layer (a copy-up from
    /// disk), or a read of the network (a download or a revalidation on its way).
    final class HeldCall: StrataPlugin {
        let layer: String
        let holdsReads: Bool
        let armed = Locked(false)
        let arrived = Gate()
        let release = Gate()

        init(layer: String, holdsReads: Bool) {
            self.layer = layer
            self.holdsReads = holdsReads
        }

        func participation(in attachment: PluginAttachment) -> PluginParticipation {
            attachment.name == layer ? .intercepts : .skipped
        }

        func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws
            -> R
        {
            // Disarmed by the call it holds: the calls after it go on.
            let holds =
                call.method.isRead == holdsReads
                && armed.withLock { armed in
                    defer { armed = false }
                    return armed
                }
            if holds {
                arrived.open()
                await release.wait()
            }
            return try await next()
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aBlobReadBeforeARemovalIsNotCopiedBackIntoMemory(removesAll: Bool) async throws {
        try await withFixture([("GET /a", reply("blob", headers: ["Cache-Control": "max-age=600"]))]) { fixture in
            // Given a blob on disk and not in memory, and a fetch of it held on its way back into memory
            let holder = HeldCall(layer: "memory", holdsReads: false)
            let cache = try fixture.makeCache(plugins: [holder])
            let url = fixture.url("a")
            _ = try await cache.fetch(from: url)
            cache.memory.removeAll()
            holder.armed.withLock { $0 = true }
            let fetch = Task { try await cache.fetch(from: url) }
            await holder.arrived.wait()

            // When the blob is removed meanwhile, and the fetch then goes on
            if removesAll { try cache.removeAll() } else { try cache.remove(url) }
            holder.release.open()
            #expect(try await fetch.value == Data("blob".utf8))

            // Then memory holds nothing: the removed blob is not served again from there
            #expect(cache.ephemeralCount == 0)
            #expect(try cache.cached(from: url) == nil)
        }
    }

    /// Before, a download or a revalidation on its way when the blobs were removed (a sign-out) stored its answer
    /// after the removal: a 304 wrote the removed blob back to disk (served again as revalidated), a download went to
    /// disk and memory; and a fetch started after the removal shared the read begun before it.
    @Test(.timeLimit(.minutes(1)), arguments: [(false, false), (false, true), (true, false), (true, true)])
    func anAnswerOnItsWayDuringARemovalIsNotStored(removesAll: Bool, revalidates: Bool) async throws {
        let served = Locked(0)
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            guard request.headers["if-none-match"] == nil else {
                return ServerReply(status: 304, headers: ["ETag": "\"v1\""])
            }
            let count = served.withLock { count in
                count += 1
                return count
            }
            return ServerReply(
                status: 200,
                headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"],
                body: Data("blob \(count)".utf8)
            )
        }
        try await withFixture([("GET /a", route)]) { fixture in
            // Given a fetch on its way to the network: a revalidation of a stored blob, or a download
            let holder = HeldCall(layer: "network", holdsReads: true)
            let cache = try fixture.makeCache(plugins: [holder])
            let url = fixture.url("a")
            if revalidates { _ = try await cache.fetch(from: url) }
            let requestsBefore = fixture.server.requestCount(path: "/a")
            holder.armed.withLock { $0 = true }
            let fetch = Task { try await cache.fetch(from: url) }
            await holder.arrived.wait()

            // When the blobs are removed meanwhile, a fetch starts after the removal, and the first then goes on
            if removesAll { try cache.removeAll() } else { try cache.remove(url) }
            let later = Task { try await cache.fetch(from: url) }
            // Its own request (bounded wait: a fetch that shares the held read never makes one)
            _ = await poll(within: .seconds(30), until: { fixture.server.requestCount(path: "/a") != requestsBefore })
            let madeItsOwnRequest = fixture.server.requestCount(path: "/a") == requestsBefore + 1
            #expect(madeItsOwnRequest)
            if madeItsOwnRequest {
                #expect(try await later.value == Data("blob \(revalidates ? 2 : 1)".utf8))
                try cache.remove(url)
            }
            holder.release.open()
            _ = try await fetch.value
            _ = try await later.value

            // Then the fetch on its way stored nothing: neither layer holds its answer
            #expect(cache.persistentCount == 0)
            #expect(cache.ephemeralCount == 0)
            #expect(try cache.cached(from: url) == nil)
            #expect(try fixture.blobFiles().isEmpty)
        }
    }

    /// The URL `…/<prefix><n>` of the first `n` whose key is (`sameStripe`) or is not in the stripe of `url`'s key.
    ///
    /// Its key is never in the stripe of `url`'s key in the chain's repositories' write stamps: a write there keeps a
    /// main answer from being written back at all (the older copy of a `no-store` answer then stays), which is the
    /// repositories' rule, not the removals'.
    private static func url(near url: URL, prefix: String, sameStripe: Bool) throws -> URL {
        let key = url.absoluteString
        let stripe = PutBackGuard.stripe(key)
        let stampStripes = BlobCache.DiskRepository.writeStampStripes
        let base = url.deletingLastPathComponent()
        let candidates = (0..<10_000).lazy.map { base.appendingPathComponent("\(prefix)\($0)") }
        return try #require(
            candidates.first { candidate in
                let other = candidate.absoluteString
                return (PutBackGuard.stripe(other) == stripe) == sameStripe
                    && other.stripe(among: stampStripes) != key.stripe(among: stampStripes)
            }
        )
    }

    /// A route that answers `reply(answer)` for the `answer`-th request, holding the request numbered `held` at the
    /// server (after `arrived` opens, until `release` does): a download on its way, past the cache's marks.
    private static func heldRoute(
        holding held: Int,
        arrived: Gate,
        release: Gate,
        _ reply: @escaping @Sendable (Int) -> ServerReply
    ) -> @Sendable (ServerRequest) async throws -> ServerReply {
        numberedRoute { answer in
            if answer == held {
                arrived.open()
                await release.wait()
            }
            return reply(answer)
        }
    }

    /// A removal of another blob (in another stripe of keys) while a download is on its way keeps nothing out:
    /// before the removals were counted by stripe, one `remove(_:)` kept every download then in flight out of both
    /// layers.
    @Test(.timeLimit(.minutes(1)))
    func aRemovalOfAnotherBlobKeepsADownloadOnItsWayStored() async throws {
        let (arrived, release) = (Gate(), Gate())
        let route = Self.heldRoute(holding: 1, arrived: arrived, release: release) { _ in
            ServerReply(status: 200, headers: ["Cache-Control": "max-age=600"], body: Data("blob".utf8))
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try fixture.makeCache()
            let url = fixture.url("a")
            let fetch = Task { try await cache.fetch(from: url) }
            await arrived.wait()

            try cache.remove(try Self.url(near: url, prefix: "other", sameStripe: false))
            release.open()
            _ = try await fetch.value

            #expect(cache.persistentCount == 1)
            #expect(cache.ephemeralCount == 1)
        }
    }

    /// A `no-store` answer on its way drops the older copy of its blob even when a blob was removed meanwhile (one of
    /// the same stripe of keys, whose removal keeps the answer itself out): before, the removal made the answer store
    /// nothing and drop nothing, and the older copy stayed to be revalidated or served stale.
    @Test(.timeLimit(.minutes(1)))
    func aNoStoreAnswerOnItsWayDuringARemovalStillDropsTheOlderCopy() async throws {
        let (arrived, release) = (Gate(), Gate())
        let route = Self.heldRoute(holding: 2, arrived: arrived, release: release) { answer in
            let control = answer == 1 ? "no-cache" : "no-store"
            return ServerReply(status: 200, headers: ["ETag": "\"v\(answer)\"", "Cache-Control": control])
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try fixture.makeCache()
            let url = fixture.url("a")
            _ = try await cache.fetch(from: url)
            #expect(cache.persistentCount == 1)
            let fetch = Task { try await cache.fetch(from: url) }
            await arrived.wait()

            try cache.remove(try Self.url(near: url, prefix: "other", sameStripe: true))
            release.open()
            _ = try await fetch.value

            #expect(cache.persistentCount == 0)
        }
    }
}
