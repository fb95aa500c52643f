import Foundation
import LoopbackServer
import Strata
import StrataTestSupport
import Testing

@testable import StrataCache

/// A BlobCache is a repository chain — memory over file over the network — that plugins see layer by layer, and
/// its write-behind never blocks the fetch that queues or skips a write.
struct BlobCacheChainTests {
    /// A plugin that records each call as `layer method outcome`.
    final class SpyPlugin: StrataPlugin {
        let calls = Locked<[String]>([])

        func intercept<R: Sendable>(
            _ call: PluginCall,
            next: @escaping @Sendable () async throws -> R
        ) async throws -> R {
            do {
                let result = try await next()
                calls.withLock { $0.append("\(call.source) \(call.method) ok") }
                return result
            } catch {
                let code = (error as? StrataError).map { "\($0.code)" } ?? "\(error)"
                calls.withLock { $0.append("\(call.source) \(call.method) \(code)") }
                throw error
            }
        }

        /// The calls recorded since the last time.
        func take() -> [String] {
            calls.withLock { calls in
                defer { calls.removeAll() }
                return calls
            }
        }
    }

    @Test func aSpyPluginSeesTheMemoryFileAndNetworkCallsOfEveryFetch() async throws {
        try await withFixture([("GET /a", reply("alpha", headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            let spy = SpyPlugin()
            let cache = try fixture.makeCache(plugins: [spy])

            // A cold fetch: memory and file miss, the network answers, the file then memory store it
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .network)
            #expect(
                spy.take() == [
                    "memory get notFound", "file get notFound", "network get ok", "file put ok", "memory put ok",
                ]
            )

            // A warm fetch: memory answers, and the plugin sees it
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            #expect(spy.take() == ["memory get ok"])

            // A disk hit: copied up into memory
            cache.purgeEphemeral()
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            #expect(spy.take() == ["memory get notFound", "file get ok", "memory put ok"])
        }
    }

    @Test func aRevalidationIsAConditionalNetworkReadThatRenewsTheFileEntry() async throws {
        try await withFixture([("GET /a", BlobCacheHTTPTests.eTagRoute)]) { fixture in
            let spy = SpyPlugin()
            let cache = try fixture.makeCache(plugins: [spy])
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            _ = spy.take()

            fixture.clock.advance(by: .seconds(61))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .revalidated)

            // The file entry read stale (not valid, as the plugins see it: before, a stale blob counted as a file hit),
            // the 304 (a value, not an error), the renewal, the copy into memory
            #expect(
                spy.take() == [
                    "memory get notFound", "file get notValid", "network get ok", "memory put ok",
                ]
            )
            #expect(fixture.server.requests.last?.headers["if-none-match"] == "\"v1\"")
        }
    }

    @Test(.timeLimit(.minutes(1))) func aNoStoreFetchDoesNotWaitForQueuedWrites() async throws {
        try await withFixture([("GET /secret", reply("s", headers: ["Cache-Control": "no-store"]))]) { fixture in
            let cache = try fixture.makeCache(persistent: .init(writes: .behind))
            let hold = BlobCacheWriteBehindTests.QueueHold(cache)

            // While a write is held, a fetch that must forget what is stored returns: nothing blocks it
            let fetched = try await cache.fetchWithLayer(from: fixture.url("secret"))
            #expect(fetched.origin == .network)
            hold.release()
            await cache.flush()
            #expect(cache.persistentCount == 0)
        }
    }

    @Test func writeBehindRunsWritesInOrderReplacesUnstartedOnesAndFlushes() async throws {
        let writes = WriteBehind<String, Int>()
        let done = Locked<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        writes.enqueue(0, forKey: "gate") { _ in gate.wait() }
        for (key, value) in [("a", 1), ("b", 2), ("a", 3)] {
            writes.enqueue(value, forKey: key) { value in done.withLock { $0.append("\(key)=\(value)") } }
        }
        #expect(writes.pending(forKey: "a") == 3)

        // flush suspends until the writes queued before it are done; the gate opens from outside the task pool
        DispatchQueue.global().async { gate.signal() }
        await writes.flush()

        // a=3 replaced a=1, which had not started, and took its place
        #expect(done.withLock { $0 } == ["a=3", "b=2"])
        #expect(writes.pending(forKey: "a") == nil)
        #expect(writes.failures == 0)
    }

    /// Settling one key waits for its write only: a write of another key held behind it does not hold the caller
    /// (it waited for the whole queue).
    @Test(.timeLimit(.minutes(1))) func settlingAKeyWaitsForItsWriteOnly() async throws {
        let writes = WriteBehind<String, Int>()
        let gate = DispatchSemaphore(value: 0)
        writes.enqueue(1, forKey: "a") { _ in }
        writes.enqueue(2, forKey: "held") { _ in gate.wait() }
        writes.enqueue(3, forKey: "after") { _ in }

        await writes.settle("a")
        await writes.settle("none")

        #expect(writes.pending(forKey: "a") == nil)
        #expect(writes.pending(forKey: "after") == 3)
        DispatchQueue.global().async { gate.signal() }
        await writes.settle("after")
        #expect(writes.pending(forKey: "held") == nil)
        #expect(writes.failures == 0)
    }

    /// A caller settling a key whose queued write is cancelled or dropped is woken, not left waiting for a write
    /// that will not run.
    @Test(.timeLimit(.minutes(1))) func settlingAKeyWhoseWriteIsCancelledOrDroppedReturns() async throws {
        let writes = WriteBehind<String, Int>()
        let gate = DispatchSemaphore(value: 0)
        writes.enqueue(0, forKey: "held") { _ in gate.wait() }
        writes.enqueue(1, forKey: "cancelled") { _ in }
        writes.enqueue(2, forKey: "dropped") { _ in }

        async let cancelled: Void = writes.settle("cancelled")
        async let dropped: Void = writes.settle("dropped")
        await poll { writes.settling >= 2 }
        #expect(writes.cancel("cancelled") == false)
        DispatchQueue.global().async { writes.drop("dropped") }
        _ = await (cancelled, dropped)

        #expect(writes.pending(forKey: "held") == 0)
        DispatchQueue.global().async { gate.signal() }
        await writes.flush()
    }

    /// A caller of `flush()` or `settle(_:)` that gives up (a request's deadline, an app's background time ending)
    /// is let go at once, whatever the disk does: both waited for the write, for ever on a hung disk. The writes
    /// go on, and a later flush still waits for them.
    @Test(.timeLimit(.minutes(1))) func aCancelledFlushOrSettleReturnsWhileTheWriteHangs() async throws {
        let writes = WriteBehind<String, Int>()
        let gate = DispatchSemaphore(value: 0)
        let written = Locked(false)
        writes.enqueue(0, forKey: "held") { _ in
            gate.wait()
            written.withLock { $0 = true }
        }

        let returned = Locked(0)
        let flushing = Task {
            await writes.flush()
            returned.withLock { $0 += 1 }
        }
        let settling = Task {
            await writes.settle("held")
            returned.withLock { $0 += 1 }
        }
        await poll { writes.flushing >= 1 && writes.settling >= 1 }
        flushing.cancel()
        settling.cancel()
        // Bounded, so that a regression fails here instead of hanging the suite (the gate opens below either way).
        _ = await poll(within: .seconds(30), until: { returned.withLock { $0 } >= 2 })

        #expect(returned.withLock { $0 } == 2, "both returned while the write hangs")
        #expect(writes.flushing == 0 && writes.settling == 0, "the waiters are gone, not leaked")
        #expect(writes.pending(forKey: "held") == 0, "the write is still to land")
        DispatchQueue.global().async { gate.signal() }
        await writes.flush()
        #expect(written.withLock { $0 })
    }

    /// The callers waiting for room hold their writes (a blob each) in memory too: past the limit between them (a
    /// disk stalled while fetches of new keys go on) a caller is refused at once, and counted as a failure — before,
    /// every fetch of a new key waited, a whole body in hand, for as long as the disk stalled.
    @Test(.timeLimit(.minutes(1))) func callersWaitingForRoomHoldTheLimitAtMost() async throws {
        let writes = WriteBehind<String, Int>(limit: 10)
        let gate = DispatchSemaphore(value: 0)
        writes.enqueue(0, forKey: "held", cost: 6) { _ in gate.wait() }
        let first = Task { await writes.reserveRoom(for: 5) }
        await poll { writes.waitingForRoom >= 1 }
        let second = Task { await writes.reserveRoom(for: 5) }
        await poll { writes.waitingForRoom >= 2 }

        // 5 + 5 wait, which is the limit: one more is refused at once, however small
        #expect(await writes.reserveRoom(for: 1) == nil)
        #expect(writes.failures == 1)
        #expect(writes.waitingForRoom == 2)

        DispatchQueue.global().async { gate.signal() }
        writes.release(try #require(await first.value))
        writes.release(try #require(await second.value))
        await writes.flush()
        #expect(writes.queuedCost == 0 && writes.reservedCost == 0)
    }

    /// A caller waiting for room behind a hung write is let go when its task is cancelled (a background refresh
    /// cancelled before a sign-out, a request past its deadline), reserving nothing, and a caller it held back that
    /// now fits is let in — before, it waited until the disk moved, and the sign-out's wait for the refreshes hung.
    @Test(.timeLimit(.minutes(1))) func aCallerWaitingForRoomIsLetGoWhenCancelled() async throws {
        let writes = WriteBehind<String, Int>(limit: 10)
        let gate = DispatchSemaphore(value: 0)
        writes.enqueue(0, forKey: "held", cost: 6) { _ in gate.wait() }
        let returned = Locked(false)
        let cancelled = Task {
            defer { returned.withLock { $0 = true } }
            return await writes.reserveRoom(for: 5)
        }
        await poll { writes.waitingForRoom >= 1 }
        // 6 + 4 fits, but waits behind the 5 that came first
        let behind = Task { await writes.reserveRoom(for: 4) }
        await poll { writes.waitingForRoom >= 2 }

        cancelled.cancel()
        // Bounded, so that a regression fails here instead of hanging the suite (the gate opens below either way).
        _ = await poll(within: .seconds(30), until: { returned.withLock { $0 } })

        #expect(returned.withLock { $0 }, "let go while the write hangs")
        #expect(writes.reservedCost == 4 && writes.waitingForRoom == 0, "the caller behind it is let in")
        DispatchQueue.global().async { gate.signal() }
        #expect(await cancelled.value == nil, "it reserved nothing")
        let reserved = try #require(await behind.value)
        #expect(reserved == 4)
        writes.release(reserved)
        await writes.flush()
        #expect(writes.queuedCost == 0 && writes.reservedCost == 0 && writes.waitingForRoom == 0)
    }

    /// Writes queued faster than they are done hold the queue to its limit: a caller waits for room, without
    /// blocking a thread, until the writes ahead of it are done; below the limit it does not wait.
    @Test(.timeLimit(.minutes(1))) func aFullQueueMakesItsCallersWaitForRoom() async throws {
        let writes = WriteBehind<String, Int>(limit: 10)
        let gate = DispatchSemaphore(value: 0)
        writes.enqueue(0, forKey: "held", cost: 6) { _ in gate.wait() }
        writes.release(try #require(await writes.reserveRoom(for: 3)))
        writes.enqueue(1, forKey: "second", cost: 3) { _ in }
        // A replaced write's cost is no longer counted: 6 + 1, and 3 more fit
        writes.enqueue(2, forKey: "second", cost: 1) { _ in }
        writes.release(try #require(await writes.reserveRoom(for: 3)))
        writes.enqueue(3, forKey: "third", cost: 3) { _ in }

        let waiting = Task { await writes.reserveRoom(for: 1) }
        await poll { writes.waitingForRoom >= 1 }
        #expect(writes.pending(forKey: "held") == 0)
        DispatchQueue.global().async { gate.signal() }
        writes.release(try #require(await waiting.value))

        await writes.flush()
        #expect(writes.queuedCost == 0 && writes.reservedCost == 0)
    }

    /// Callers that all find room at once cannot together pass the limit: room is reserved before the write is
    /// queued, so the second caller sees the first one's write before it exists. Callers are let in in the order
    /// they came, and a write costlier than the whole limit goes alone once nothing else is held.
    @Test(.timeLimit(.minutes(1))) func reservedRoomCountsBeforeTheWriteIsQueued() async throws {
        let writes = WriteBehind<String, Int>(limit: 10)

        // Given a caller holding room for 6, with nothing queued yet
        let first = try #require(await writes.reserveRoom(for: 6))

        // When two more arrive, for 6 and then for 1
        let second = Task { await writes.reserveRoom(for: 6) }
        await poll { writes.waitingForRoom >= 1 }
        let third = Task { await writes.reserveRoom(for: 1) }
        await poll { writes.waitingForRoom >= 2 }

        // Then both wait (the 1 would fit, but waits behind the 6 that came first)
        #expect(writes.reservedCost == 6)

        // And when the first queues its write and gives the room back, the queued write still holds it
        let gate = DispatchSemaphore(value: 0)
        writes.enqueue(0, forKey: "first", cost: 6) { _ in gate.wait() }
        writes.release(first)
        #expect(writes.waitingForRoom == 2)

        // Until the write is done: then both are let in, in order
        DispatchQueue.global().async { gate.signal() }
        let secondReserved = try #require(await second.value)
        let thirdReserved = try #require(await third.value)
        #expect(secondReserved == 6 && thirdReserved == 1)
        #expect(writes.reservedCost == 7)
        writes.release(secondReserved)
        writes.release(thirdReserved)

        // And a write costlier than the limit waits for nothing else held, then goes alone
        let held = try #require(await writes.reserveRoom(for: 4))
        let large = Task { await writes.reserveRoom(for: 25) }
        await poll { writes.waitingForRoom >= 1 }
        writes.release(held)
        #expect(await large.value == 25)
        #expect(writes.reservedCost == 25)
        writes.release(25)
        #expect(writes.reservedCost == 0)
    }
}
