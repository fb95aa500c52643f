import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

@testable import StrataCache

/// A released BlobCache is gone while its background revalidation waits at the server: its persistent folder is free
/// for a new cache at once, and the old revalidation's answer is written nowhere.
struct BlobCacheReleaseDuringRevalidationTests {
    /// A server whose answers to `/a` are `v1`, `v2`, … with `max-age=0, stale-while-revalidate=60` and an `ETag`,
    /// and that holds every request after the first until released.
    final class HoldingOrigin: Sendable {
        private struct State {
            var version = 0
            var gates: [CheckedContinuation<Void, Never>] = []
            /// Set by ``release()``: later requests are answered at once.
            var released = false
        }

        private let state = Locked(State())
        /// Yields once for each request the server holds.
        let held: AsyncStream<Void>
        private let heldContinuation: AsyncStream<Void>.Continuation

        init() {
            (held, heldContinuation) = AsyncStream.makeStream(of: Void.self)
        }

        /// Lets the held requests be answered, and every later one at once: a request that reaches the server only
        /// after this (a revalidation the test cancelled, still read by a loaded server) is never held, which would
        /// hold the server's stop, and the test, for ever.
        func release() {
            let gates = state.withLock { state in
                defer { (state.gates, state.released) = ([], true) }
                return state.gates
            }
            for gate in gates { gate.resume() }
        }

        var route: @Sendable (ServerRequest) async throws -> ServerReply {
            { [self] _ in
                let version = state.withLock { state in
                    state.version += 1
                    return state.version
                }
                if version > 1 {
                    await withCheckedContinuation { gate in
                        let held = state.withLock { state in
                            if !state.released { state.gates.append(gate) }
                            return !state.released
                        }
                        if held { heldContinuation.yield() } else { gate.resume() }
                    }
                }
                return ServerReply(
                    status: 200,
                    headers: ["Cache-Control": "max-age=0, stale-while-revalidate=60", "ETag": "\"v\(version)\""],
                    body: Data("v\(version)".utf8)
                )
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aCacheReleasedWhileItRevalidatesFreesItsFolder() async throws {
        let origin = HoldingOrigin()
        try await withFixture([("GET /a", origin.route)]) { fixture in
            // Given a cache that downloaded /a, stale at once but inside its stale-while-revalidate window
            var cache: BlobCache? = try fixture.makeCache()
            _ = try await cache?.fetch(from: fixture.url("a")) as Data?
            fixture.clock.advance(by: .seconds(1))

            // When a second fetch is served stale, its revalidation is held at the server, and the cache is released
            let stale = try await cache?.fetchWithLayer(from: fixture.url("a"))
            #expect(stale?.origin == .stale)
            var held = origin.held.makeAsyncIterator()
            _ = await held.next()
            weak let released = cache
            cache = nil
            // (Nothing else should hold it; a task on its way may take a moment to let go.)
            let isReleased = await poll(within: .seconds(10)) { released == nil }

            // Then it is gone, and a new cache opens on the same folder and serves the blob
            #expect(isReleased)
            let reopening = Result { try fixture.makeCache() }
            if case .failure = reopening { origin.release() }  // so that the server can stop
            let reopened = try reopening.get()
            #expect(try await reopened.fetch(from: fixture.url("a")) == Data("v1".utf8))
            reopened.cancelBackgroundRefreshes()
            await reopened.waitForBackgroundRefreshes()
            origin.release()
        }
    }
}
