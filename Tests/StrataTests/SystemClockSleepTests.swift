import Foundation
import Strata
import Testing

/// `WallClock.sleep(until:)` takes any date: one absurdly far, infinite or not a number sleeps as long as a wait goes
/// (about 31 years) or not at all, and a cancelled task ends it — never a trap in `Duration.seconds`.
struct SystemClockSleepTests {
    @Test(arguments: [1e19, 1e300, .infinity])
    func aDeadlineFarBeyondAnyWaitIsAWaitThatCancellationEnds(secondsAhead: Double) async {
        let sleeper = Task { try await SystemClock().sleep(until: Date(timeIntervalSinceNow: secondsAhead)) }
        sleeper.cancel()
        let result = await sleeper.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test(.timeLimit(.minutes(1))) func aDeadlineThatIsNotANumberDoesNotWait() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        try await SystemClock().sleep(until: Date(timeIntervalSinceReferenceDate: .nan))
        // The wrong outcomes are a trap or a wait of about 31 years: the bound is far from both, and from a run whose
        // other tests hold every pool thread for seconds (as `ManualClockTests` bounds its waits).
        #expect(clock.now - started < .seconds(59), "a deadline that is not a number was waited for")
    }
}
