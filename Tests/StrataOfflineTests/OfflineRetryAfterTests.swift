import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataOffline
import StrataTestSupport
import StrataTesting
import Testing

/// A server's `Retry-After` lengthens the replay timer's pause, never shortens it below the backoff.
struct OfflineRetryAfterTests {
    @Test(
        .timeLimit(.minutes(1)),
        arguments: ["0", "Wed, 21 Oct 2015 07:28:00 GMT"]
    )
    func aRetryAfterOfNothingWaitsForTheBackoff(retryAfter: String) async throws {
        // Given a server that answers every write 503 with a `Retry-After` of no wait (0, or a date long past)
        let server = try await LoopbackServer.start([
            ("PUT /notes/*", { _ in ServerReply(status: 503, headers: ["Retry-After": retryAfter]) })
        ])
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let clock = ManualClock()
        let base = server.baseURL
        let notes = try await NotesRepository.open(
            main: NotesServer.source { base },
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder,
            configuration: .init(backoff: RetryPlugin.Backoff(initial: .seconds(1), jitter: .none), clock: clock)
        )

        // When one put fails, on a clock that stands still
        let write = try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
        #expect(write.isPending)
        await poll { clock.sleeperCount != 0 || server.requestCount() >= 3 }

        // Then the timer sleeps for the backoff, and the server saw that one write only
        #expect(clock.sleeperCount == 1)
        #expect(clock.sleepCalls.last == .seconds(1))
        #expect(server.requestCount() == 1)
        await notes.close()
        await server.stop()
    }
}
