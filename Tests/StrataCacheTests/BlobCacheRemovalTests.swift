import Foundation
import LoopbackServer
import Strata
import Testing

@testable import StrataCache

/// A blob read before `remove(_:)` or `removeAll()` never goes back into memory after it: a fetch that read the
/// disk before the removal and copies the blob up after it leaves memory as the removal left it.
struct BlobCacheRemovalTests {
    /// Holds the memory layer's writes (a copy-up from disk), once armed, until ``release`` opens.
    final class HeldCopyUp: StrataPlugin {
        let armed = Locked(false)
        let arrived = Gate()
        let release = Gate()

        func participation(in attachment: PluginAttachment) -> PluginParticipation {
            attachment.name == "memory" ? .intercepts : .skipped
        }

        func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws
            -> R
        {
            if !call.method.isRead, armed.withLock({ $0 }) {
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
            let holder = HeldCopyUp()
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
}
