import Foundation
import Strata
import StrataTesting
import Testing

/// The manual clock keeps time exactly: a `Date` near today tells time to about a tenth of a microsecond only, and a
/// clock that kept its time as one added to at every advance drifted from the deadlines it set.
struct ManualClockPrecisionTests {
    /// Before, the sleeper's deadline was a `Date` 1.2e-7 s past the clock's date after 2 ms and 4 ms: it never woke.
    @Test func aSleepWakesWhenSplitAdvancesReachItsDuration() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .milliseconds(6)) }
        await clock.waitForSleepers(1)

        clock.advance(by: .milliseconds(2))
        clock.advance(by: .milliseconds(4))

        #expect(clock.sleeperCount == 0, "the sleeper was not woken at its deadline")
        sleeper.cancel()
        #expect((try? await sleeper.value) != nil)
    }

    /// Before, a sleep until 6 ms from now recorded 6.000042 ms, and split advances to the date did not wake it.
    @Test func aSleepUntilADateRecordsTheTimeLeftAndWakesAtIt() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: clock.now().addingTimeInterval(0.006)) }
        await clock.waitForSleepers(1)

        clock.advance(by: .milliseconds(2))
        clock.advance(by: .milliseconds(4))

        #expect(clock.sleepCalls == [.milliseconds(6)])
        #expect(clock.sleeperCount == 0, "the sleeper was not woken at its date")
        sleeper.cancel()
        #expect((try? await sleeper.value) != nil)
    }

    /// A validator's "expired at storedAt + maxAge" is the same date however the test moved the clock there.
    @Test func splitAdvancesTellTheSameDateAsOne() {
        let split = ManualClock()
        let whole = ManualClock()
        for _ in 0..<10 { split.advance(by: .milliseconds(100)) }
        split.advance(by: .microseconds(3))
        whole.advance(by: .microseconds(1_000_003))

        #expect(split.now() == whole.now())
        #expect(whole.now() == Date(timeIntervalSince1970: 1_700_000_000).addingTimeInterval(1.000003))
    }
}
