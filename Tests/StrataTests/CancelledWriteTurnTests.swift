import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// A write through the repository waits for the turn of a write-back of its keys; a writer whose task is cancelled
/// meanwhile stops waiting, writes nothing, and lets the writers behind it in.
struct CancelledWriteTurnTests {
    /// Before, a writer held behind a write-back whose cache write hangs (a stalled disk) waited on after its task was
    /// cancelled, until the cache write ended, and then wrote.
    @Test(.timeLimit(.minutes(1)))
    func aCancelledWriterStopsWaitingForAWriteBacksTurnAndWritesNothing() async throws {
        // Given a read whose write-back of main's "old" hangs in the cache
        let cacheGate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["1": "old"])
        let cache = PluginTestStore<String>(writeGate: cacheGate, gatedWrites: 1)
        let repository = CacheRepository(main: main, cache: cache)
        let read = Task { try await repository.get(IdQuery(1), operation: .cacheSync) }
        await cacheGate.waitForEntered(1)

        // When two puts of the key wait for the write-back's turn and the first one's task is cancelled
        let cancelled = Task { try await repository.put("cancelled", in: IdQuery(1), operation: .main) }
        await repository.writeStamps.waitForTurnWaiters(1)
        let next = Task { try await repository.put("next", in: IdQuery(1), operation: .main) }
        await repository.writeStamps.waitForTurnWaiters(2)
        cancelled.cancel()

        // Then the cancelled put stops waiting at once, while the write-back still hangs, and writes nothing
        let error = await #expect(throws: StrataError.self) { try await cancelled.value }
        #expect(error?.code == .cancelled)
        #expect(main.calls(.put) == 0)

        // And once the write-back ends, the next put takes its turn
        cacheGate.open()
        #expect(try await next.value == "next")
        _ = try await read.value
        #expect(main.peek("1") == "next")
        #expect(main.calls(.put) == 1)
    }
}
