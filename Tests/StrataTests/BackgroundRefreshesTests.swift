import StrataTestSupport
import Testing

@testable import Strata

/// Before, waiting for background refreshes waited until none ran at all, and a waiting task that was cancelled
/// waited on.
struct BackgroundRefreshesTests {
    @Test(.timeLimit(.minutes(1)))
    func waitingEndsWithTheRefreshesRunningAtTheCallNotThoseThatStartMeanwhile() async {
        // Given a refresh held at a gate, and a caller waiting for the refreshes
        let refreshes = BackgroundRefreshes()
        let (first, second) = (AsyncGate(isOpen: false), AsyncGate(isOpen: false))
        #expect(refreshes.start(key: 1, limit: 8) { await first.enter() })
        let waiting = Task { await refreshes.waitForAll() }
        await poll { refreshes.waiterCount >= 1 }

        // When another refresh starts meanwhile, and only the first one ends
        #expect(refreshes.start(key: 2, limit: 8) { await second.enter() })
        first.open()

        // Then the caller stops waiting while the later refresh still runs
        await waiting.value
        #expect(refreshes.count == 1)
        second.open()
        await refreshes.waitForAll()
        #expect(refreshes.count == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func aCancelledCallerStopsWaiting() async {
        // Given a refresh held at a gate, and a caller waiting for it
        let refreshes = BackgroundRefreshes()
        let gate = AsyncGate(isOpen: false)
        #expect(refreshes.start(key: 1, limit: 8) { await gate.enter() })
        let waiting = Task { await refreshes.waitForAll() }
        await poll { refreshes.waiterCount >= 1 }

        // When the caller's task is cancelled, it returns while the refresh is still held
        waiting.cancel()
        await waiting.value
        #expect(refreshes.count == 1)
        #expect(refreshes.waiterCount == 0)
        gate.open()
        await refreshes.waitForAll()
    }
}
