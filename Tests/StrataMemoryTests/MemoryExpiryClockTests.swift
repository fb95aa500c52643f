import Foundation
import Strata
import StrataMemory
import Synchronization
import Testing

/// A clock whose expiry checks read their own date, apart from the date stamped on writes.
private final class TwoDateClock: WallClock {
    private let dates = Mutex((now: Date(timeIntervalSince1970: 0), expiryCheck: Date(timeIntervalSince1970: 0)))

    func now() -> Date { dates.withLock { $0.now } }

    func nowForExpiryCheck() -> Date { dates.withLock { $0.expiryCheck } }

    func sleep(for duration: Duration) async throws {}

    func set(now: TimeInterval, expiryCheck: TimeInterval) {
        dates.withLock {
            $0 = (Date(timeIntervalSince1970: now), Date(timeIntervalSince1970: expiryCheck))
        }
    }
}

struct MemoryExpiryClockTests {
    @Test func expiryIsDecidedByTheClocksExpiryCheckDateAndWritesAreStampedWithItsDate() {
        let clock = TwoDateClock()
        let memory = MemoryDataSource<Int>(configuration: .init(timeToLive: .seconds(10), clock: clock))
        memory.setValue(1, forKey: "a")
        // Written at 0, so it expires at 10, whatever the expiry-check date was then.
        clock.set(now: 100, expiryCheck: 9.999)
        #expect(memory.value(forKey: "a") == 1)
        #expect(memory.sortedKeys() == ["a"])
        #expect(memory.removeExpired() == 0)
        clock.set(now: 0, expiryCheck: 10)
        #expect(memory.sortedKeys() == [])
        #expect(memory.value(forKey: "a") == nil)
    }

    @Test func removeExpiredUsesTheExpiryCheckDate() {
        let clock = TwoDateClock()
        let memory = MemoryDataSource<Int>(configuration: .init(timeToLive: .seconds(10), clock: clock))
        memory.setValue(1, forKey: "a")
        clock.set(now: 0, expiryCheck: 10)
        #expect(memory.removeExpired() == 1)
        #expect(memory.count == 0)
    }

    @Test func theSystemClocksCoarseExpiryCheckIsNeverAheadAndWithinATickOrTwo() {
        let coarse = SystemClock(coarseExpiryChecks: true)
        var largestLag: TimeInterval = 0
        for _ in 0..<1_000 {
            let checked = coarse.nowForExpiryCheck()
            let exact = coarse.now()
            // Not ahead: 10 µs of slack for `Date`'s rounding and a microsecond read of the exact clock.
            #expect(checked <= exact.addingTimeInterval(0.000_01))
            largestLag = max(largestLag, exact.timeIntervalSince(checked))
        }
        // A tick is 1 to 4 ms; a second leaves room for a descheduled test on a loaded machine.
        #expect(largestLag < 1)
    }

    @Test func theDefaultSystemClocksExpiryCheckIsExact() {
        let clock = SystemClock()
        for _ in 0..<1_000 {
            let before = clock.now()
            let checked = clock.nowForExpiryCheck()
            #expect(before <= checked)
            #expect(checked <= clock.now())
        }
    }
}
