import Foundation
import Testing

@testable import StrataOffline

/// The replay timer keeps the earliest wake: timers are set from readings of the outbox made before the schedule's
/// lock is taken, so the last to take it may hold the oldest reading.
struct ReplayScheduleTests {
    @Test func onlyAnEarlierWakeReplacesAPendingTimer() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var schedule = ReplaySchedule()
        #expect(schedule.replacesTimer(wakingAt: now.addingTimeInterval(256)))

        // A write failed a second ago: its timer wakes in a second; a reading from before it (256 s) comes last.
        schedule.timerWake = now.addingTimeInterval(1)
        #expect(!schedule.replacesTimer(wakingAt: now.addingTimeInterval(256)))
        #expect(!schedule.replacesTimer(wakingAt: now.addingTimeInterval(1)))
        #expect(schedule.replacesTimer(wakingAt: now.addingTimeInterval(0.5)))

        // Once the timer woke, the replay it started sets the next, whenever it wakes.
        schedule.timerWake = nil
        #expect(schedule.replacesTimer(wakingAt: now.addingTimeInterval(256)))
    }
}
