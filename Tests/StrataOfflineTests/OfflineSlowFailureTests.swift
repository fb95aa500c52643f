import Foundation
import Strata
import StrataMemory
import StrataOffline
import StrataTesting
import Testing

/// The first pause of a write main refused is counted from the refusal, as every later one is: counted from before the
/// attempt, a first attempt slower than the pause (a 30 s timeout against a 1 s backoff) left nothing of it, and the
/// write was sent again at once.
struct OfflineSlowFailureTests {
    @Test(.timeLimit(.minutes(1)))
    func theFirstPauseStartsWhenTheSlowAttemptFailed() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let clock = ManualClock()
        let notes = try await OfflineRepository.open(
            // A main whose every write takes 30 s on the manual clock, then fails as a network error would
            main: ScriptedMain {
                clock.advance(by: .seconds(30))
                throw StrataError(.network, "timed out after 30 s")
            },
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder,
            configuration: .init(
                backoff: RetryPlugin.Backoff(initial: .seconds(1), multiplier: 2, maximum: .seconds(60), jitter: .none),
                clock: clock
            )
        )

        // A write whose first attempt fails after 30 s is queued for 1 s after that failure
        try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
        let notBefore = await notes.outbox.pendingWrites.first?.notBefore
        #expect(notBefore == clock.now().addingTimeInterval(1))

        // And the timer waits that second before sending it again
        await clock.waitForSleepers(1)
        #expect(clock.sleepCalls.last == .seconds(1))
        #expect(await notes.outbox.pendingWrites.first?.attempts == 1)
        await notes.close()
    }
}
