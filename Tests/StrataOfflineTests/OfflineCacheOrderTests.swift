import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataOffline
import StrataTestSupport
import Testing

/// Two writes of one key at once: the cache takes them in the order the outbox numbers them, the order main gets
/// them, so once the outbox drains the cache holds what main holds.
struct OfflineCacheOrderTests {
    @Test(.timeLimit(.minutes(1)))
    func twoWritesOfAKeyAtOnceReachTheCacheInTheirOrder() async throws {
        // Given a repository whose cache holds the first write of `a` on its way in
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let cache = HeldSource()
        let notes = try await OfflineRepository.open(
            main: server.source,
            cache: cache,
            outboxFolder: folder,
            configuration: .init(replaysOnTimer: false)
        )
        let first = Task { try await notes.put(Note(id: "a", text: "held", version: 1), in: KeyQuery("a")) }
        await cache.arrived.wait()

        // When a second write of `a` starts meanwhile, and waits for the first's turn (before, it overtook the first:
        // it wrote the cache and was queued while the first was held)
        let second = Task { try await notes.put(Note(id: "a", text: "second", version: 2), in: KeyQuery("a")) }
        await poll { () async -> Bool in
            let (waiting, queued) = (await notes.waitingForTurn(ofKey: "a"), await notes.outbox.count)
            return waiting == 1 || queued > 0
        }
        cache.release.open()
        _ = try await first.value
        _ = try await second.value
        _ = await notes.sync()

        // Then main got both in order, and the cache holds the second, as main does
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["held", "second"])
        #expect(try await cache.memory.get(KeyQuery("a")).text == "second")
        await notes.close()
        await server.stop()
    }
}
