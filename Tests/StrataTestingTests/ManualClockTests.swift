import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

struct ManualClockTests {
    @Test func advancingWakesSleepersWhoseDeadlineCame() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.sleepCalls == [.seconds(5)])
    }

    @Test func cancellingASleeperThrowsCancellationError() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    /// A test whose code never sleeps: its wait for a sleeper returns when cancelled (at the test's time limit)
    /// instead of spinning for ever at full speed and hanging the run.
    @Test(.timeLimit(.minutes(1)))
    func aCancelledWaitForSleepersReturnsWithoutASleeper() async throws {
        let clock = ManualClock()
        let returned = Locked(false)
        let waiter = Task {
            await clock.waitForSleepers()
            returned.withLock { $0 = true }
        }
        waiter.cancel()
        // Bounded, so that a regression fails here rather than hangs the suite.
        let hasReturned = await poll(within: .seconds(30)) { returned.withLock { $0 } }
        #expect(hasReturned, "waitForSleepers() kept waiting after its task was cancelled")
        #expect(clock.sleeperCount == 0)
        // (A sleeper makes the count, for a wait that kept waiting.)
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        await waiter.value
        sleeper.cancel()
        _ = try? await sleeper.value
    }

    @Test(.timeLimit(.minutes(1)))
    func aWaitForSleepersReturnsOnceTheCountSleeps() async throws {
        let clock = ManualClock()
        let waiter = Task { await clock.waitForSleepers(2) }
        let first = Task { try await clock.sleep(for: .seconds(1)) }
        let second = Task { try await clock.sleep(for: .seconds(2)) }
        await waiter.value
        #expect(clock.sleeperCount == 2)
        clock.advance(by: .seconds(2))
        try await first.value
        try await second.value
    }

    @Test func aSleepUntilADateWakesAtThatDateHoweverLateItStarted() async throws {
        // Given a deadline 5 s ahead, and a clock advanced by 3 s before the sleeper starts
        let clock = ManualClock()
        let deadline = clock.now().addingTimeInterval(5)
        clock.advance(by: .seconds(3))
        let sleeper = Task { try await clock.sleep(until: deadline) }
        await clock.waitForSleepers(1)

        // Then it wakes 2 s later, at the date, not 5 s after it started; the time left is what it records
        clock.advance(by: .seconds(2))
        try await sleeper.value
        #expect(clock.sleepCalls == [.seconds(2)])

        // And a date that has passed returns at once
        try await clock.sleep(until: deadline.addingTimeInterval(-1))
        #expect(clock.sleeperCount == 0)
    }

    /// A date absurdly far, infinite or not a number (a damaged record's) is a wait as long as a wait goes, or none,
    /// as on the system clock: never a trap in `Duration.seconds`.
    @Test(arguments: [1e19, 1e300, .infinity])
    func aDeadlineFarBeyondAnyWaitIsTheLongestWait(secondsAhead: Double) async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: clock.now().addingTimeInterval(secondsAhead)) }
        await clock.waitForSleepers(1)
        #expect(clock.sleepCalls == [.seconds(1_000_000_000)])
        sleeper.cancel()
        let result = await sleeper.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func aDeadlineThatIsNotANumberDoesNotWait() async throws {
        let clock = ManualClock()
        try await clock.sleep(until: Date(timeIntervalSinceReferenceDate: .nan))
        #expect(clock.sleepCalls == [.zero])
    }

    @Test func theSystemClockSleepsUntilADateThatHasPassedWithoutWaiting() async throws {
        let clock = SystemClock()
        let start = ContinuousClock.now
        try await clock.sleep(until: clock.now().addingTimeInterval(-60))
        try await clock.sleep(until: clock.now().addingTimeInterval(0.01))
        // Not a timing assertion: the sleep ended, and a minute in the past did not become a minute's wait (under a
        // loaded suite the 10 ms sleep has been seen to resume 31 s late, waiting for a thread of the pool).
        #expect(ContinuousClock.now - start < .seconds(59))
    }

    @Test func nowMovesOnlyWhenAdvanced() {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 0))
        #expect(clock.now() == Date(timeIntervalSince1970: 0))
        clock.advance(by: .milliseconds(1_500))
        #expect(clock.now() == Date(timeIntervalSince1970: 1.5))
    }
}

struct ScriptedDataSourceTests {
    @Test func scriptedOutcomesComeFirstThenTheStoreAnswers() async throws {
        let source = ScriptedDataSource(["k": "stored"])
        source.script(.get, .value("scripted"), .failure(StrataError(.network, "down")))
        #expect(try await source.get(KeyQuery("k")) == "scripted")
        await #expect(throws: StrataError.self) { try await source.get(KeyQuery("k")) }
        #expect(try await source.get(KeyQuery("k")) == "stored")
        #expect(source.callCount(.get) == 3)
    }

    @Test func spiesRecordCallsInOrderAcrossSources() async throws {
        let journal = CallJournal()
        let first = SpyDataSource(name: "first", wrapping: ScriptedDataSource(["k": "v"]), journal: journal)
        let second = SpyDataSource(name: "second", wrapping: ScriptedDataSource<String>(), journal: journal)
        _ = try await first.get(KeyQuery("k"))
        _ = try await second.put("v", in: KeyQuery("k"))
        try await first.delete(KeyQuery("k"))
        #expect(journal.trace == ["first.get", "second.put", "first.delete"])
        #expect(first.calls.count == 2)
    }
}

struct DataSourceConformanceTests {
    @Test func theScriptedFakePassesTheConformanceSuite() async throws {
        try await DataSourceConformance(makeSource: { ScriptedDataSource<String>() }, makeValue: { "v\($0)" }).run()
    }

    @Test func aSourceThatLosesWritesFailsWithTheRuleNamed() async throws {
        let suite = DataSourceConformance(
            makeSource: { () -> ScriptedDataSource<String> in
                let source = ScriptedDataSource<String>()
                source.script(.get, .value("wrong"), .value("wrong"))
                return source
            },
            makeValue: { "v\($0)" }
        )
        let failure = await #expect(throws: ConformanceFailure.self) { try await suite.run() }
        #expect(failure?.rule == "a missing key is notFound")
    }
}
