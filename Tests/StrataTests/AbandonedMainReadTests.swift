import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// Before, a read's main request went on after its only caller was cancelled (a screen closed): shared by the
/// repository's coalescer, it ran to its end (a transport's whole timeout), holding the repository and writing its
/// answer back. A request nobody waits for is cancelled now, and the next read makes a new one.
struct AbandonedMainReadTests {
    @Test(.timeLimit(.minutes(1)))
    func aMainReadWhoseEveryCallerWasCancelledIsCancelled() async throws {
        // Given a cache miss whose main read answers only when cancelled, shared by two callers
        let clock = ManualClock()
        let cache = ObservableStore<String>()
        let repository = CacheRepository(main: UnansweringMain(clock: clock), cache: cache)
        let first = Task { try await repository.get(KeyQuery("9"), operation: .cacheSync) }
        let second = Task { try await repository.get(KeyQuery("9"), operation: .cacheSync) }
        await poll { repository.mainReads.waiterCount >= 2 }
        await clock.waitForSleepers(1)

        // When one caller is cancelled, the read goes on for the other
        first.cancel()
        #expect(await Result { try await first.value }.failure?.strataCode == .cancelled)
        #expect(repository.mainReads.inFlightCount == 1 && clock.sleeperCount == 1)

        // Then, the last one cancelled, main sees the cancellation, and no read is in flight
        second.cancel()
        #expect(await Result { try await second.value }.failure?.strataCode == .cancelled)
        #expect(repository.mainReads.inFlightCount == 0)
        await poll { clock.sleeperCount <= 0 }
        #expect(clock.sleeperCount == 0 && cache.contents["9"] == nil)

        // And the next read makes a request of its own
        let third = Task { try await repository.get(KeyQuery("9"), operation: .cacheSync) }
        await clock.waitForSleepers(1)
        third.cancel()
        #expect(await Result { try await third.value }.failure?.strataCode == .cancelled)
    }
}
