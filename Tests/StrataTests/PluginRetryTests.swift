import Strata
import StrataTesting
import Testing

struct PluginRetryTests {
    private static let network = StrataError(.network, "Connection reset")

    private func retry(
        attempts: Int = 3,
        backoff: RetryPlugin.Backoff = .init(jitter: .none),
        clock: ManualClock,
        seed: UInt64 = 1
    ) -> RetryPlugin {
        RetryPlugin(
            configuration: .init(maxAttempts: attempts, backoff: backoff),
            clock: clock,
            random: SeededRandomNumberGenerator(seed: seed)
        )
    }

    @Test func retriesRetryableFailuresUntilTheCallSucceeds() async throws {
        // Given a source that fails twice with a network error
        let clock = ManualClock()
        let store = PluginTestStore(["a": 1])
        store.failNext(Self.network, Self.network)
        let source = store.plugins([retry(clock: clock)])

        // When
        let outcome = await drive(Task { try await source.get(KeyQuery("a")) }, clock: clock, sleeps: 2)

        // Then three calls were made, with the pauses 100 ms and 200 ms
        #expect(try outcome.get() == 1)
        #expect(store.calls(.get) == 3)
        #expect(clock.sleepCalls == [.milliseconds(100), .milliseconds(200)])
    }

    @Test func givesUpAfterTheMaximumNumberOfAttempts() async throws {
        let clock = ManualClock()
        let store = PluginTestStore(["a": 1])
        store.failNext(Self.network, Self.network, Self.network, Self.network)
        let source = store.plugins([retry(attempts: 3, clock: clock)])

        let outcome = await drive(Task { try await source.get(KeyQuery("a")) }, clock: clock, sleeps: 2)

        let error = #expect(throws: StrataError.self) { try outcome.get() }
        #expect(store.calls(.get) == 3)
        #expect(clock.sleepCalls.count == 2)
        // The final error says how many attempts were made over how long (the time the test's clock moved)
        #expect(error?.code == .network)
        #expect(error?.message == "Connection reset (after 3 attempts over 7200.000 s)")
    }

    @Test func backoffCeilingsGrowExponentiallyUpToTheMaximum() {
        let backoff = RetryPlugin.Backoff(initial: .milliseconds(100), multiplier: 2, maximum: .seconds(1))

        let ceilings = (1...6).map { backoff.ceiling(beforeRetry: $0) }

        #expect(ceilings == [100, 200, 400, 800, 1_000, 1_000].map { .milliseconds($0) })
    }

    /// A retry number read from a file can be `Int.max`; with a multiplier just above 1 the ceiling took that
    /// many multiplications to reach the maximum (the call never returned). It is the maximum at once, and an
    /// odd multiplier still gives the product's value.
    @Test(.timeLimit(.minutes(1)))
    func backoffCeilingOfAHugeRetryNumberIsTheMaximumAtOnce() {
        let slow = RetryPlugin.Backoff(
            initial: .milliseconds(100),
            multiplier: 1.000_000_000_1,
            maximum: .seconds(10)
        )
        let odd = RetryPlugin.Backoff(initial: .milliseconds(100), multiplier: 1.5, maximum: .seconds(10))

        #expect(slow.ceiling(beforeRetry: .max) == .seconds(10))
        #expect(slow.ceiling(beforeRetry: 1) == .milliseconds(100))
        #expect(odd.ceiling(beforeRetry: 4) == .microseconds(337_500))
        #expect(odd.ceiling(beforeRetry: .max) == .seconds(10))
    }

    /// A maximum of 292 years or more made the ceiling 2^63 nanoseconds as a `Double`, and `Int64(_:)` trapped on
    /// it; a random value that is not a number trapped too, and a maximum just under `Int64.max` nanoseconds
    /// wrapped to a negative count (a pause of zero). Each saturates at the largest duration instead.
    @Test func backoffOfTheLargestDurationsSaturates() {
        let huge = RetryPlugin.Backoff(initial: .seconds(1), maximum: .seconds(Int64.max))
        let nearTheEdge = RetryPlugin.Backoff(
            initial: .seconds(1),
            maximum: .seconds(9_223_372_036) + .milliseconds(999),
            jitter: .none
        )

        #expect(huge.ceiling(beforeRetry: .max) == .nanoseconds(Int64.max))
        #expect(huge.ceiling(beforeRetry: 1) == .seconds(1))
        #expect(huge.delay(beforeRetry: .max, unitRandom: .nan) == .zero)
        #expect(huge.delay(beforeRetry: .max, unitRandom: -1) == .zero)
        let nearlyAll = huge.delay(beforeRetry: .max, unitRandom: 1)
        #expect(nearlyAll > .zero && nearlyAll < .nanoseconds(Int64.max))
        #expect(huge.delay(beforeRetry: .max, unitRandom: .infinity) == nearlyAll)
        #expect(nearTheEdge.ceiling(beforeRetry: .max) == .nanoseconds(Int64.max))
    }

    @Test func fullJitterFollowsTheSeededScheduleExactly() async throws {
        // Given five failures and full jitter drawn from a seeded generator
        let clock = ManualClock()
        let backoff = RetryPlugin.Backoff(
            initial: .milliseconds(100),
            multiplier: 2,
            maximum: .seconds(1),
            jitter: .full
        )
        let store = PluginTestStore(["a": 1])
        store.failNext(Self.network, Self.network, Self.network, Self.network, Self.network)
        let source = store.plugins([retry(attempts: 6, backoff: backoff, clock: clock, seed: 42)])

        // When
        let outcome = await drive(Task { try await source.get(KeyQuery("a")) }, clock: clock, sleeps: 5)

        // Then each pause is the seeded draw below its ceiling
        #expect(try outcome.get() == 1)
        var random = SeededRandomNumberGenerator(seed: 42)
        let expected = (1...5).map { backoff.delay(beforeRetry: $0, using: &random) }
        #expect(clock.sleepCalls == expected)
        for (index, pause) in clock.sleepCalls.enumerated() {
            #expect(pause >= .zero && pause < backoff.ceiling(beforeRetry: index + 1))
        }
        #expect(clock.sleepCalls != (1...5).map { backoff.ceiling(beforeRetry: $0) })
    }

    @Test func theSameSeedGivesTheSameJitterAndAnotherSeedAnother() {
        let backoff = RetryPlugin.Backoff(initial: .seconds(1), maximum: .seconds(30))
        func schedule(_ seed: UInt64) -> [Duration] {
            var random = SeededRandomNumberGenerator(seed: seed)
            return (1...8).map { backoff.delay(beforeRetry: $0, using: &random) }
        }

        #expect(schedule(7) == schedule(7))
        #expect(schedule(7) != schedule(8))
    }

    @Test func waitsExactlyWhatRetryAfterAsks() async throws {
        let clock = ManualClock()
        let store = PluginTestStore(["a": 1])
        // The wait comes from the error's cause (RetryAdvising), as a network source's HTTP failure gives it.
        store.failNext(
            StrataError.remote(.unexpectedResponse, "Busy", status: 503, isRetryable: true, delay: .seconds(7))
        )
        let source = store.plugins([retry(clock: clock)])

        let outcome = await drive(Task { try await source.get(KeyQuery("a")) }, clock: clock, sleeps: 1)

        #expect(try outcome.get() == 1)
        #expect(clock.sleepCalls == [.seconds(7)])
    }

    @Test func aRetryAfterLongerThanTheLimitFailsAtOnce() async throws {
        let clock = ManualClock()
        let store = PluginTestStore(["a": 1])
        store.failNext(
            StrataError.remote(.unexpectedResponse, "Later", status: 429, isRetryable: true, delay: .seconds(600))
        )
        let source = store.plugins([retry(clock: clock)])

        let error = await #expect(throws: StrataError.self) { try await source.get(KeyQuery("a")) }

        #expect(error?.cause(as: RemoteFailureStub.self)?.status == 429)
        #expect(store.calls(.get) == 1)
        #expect(clock.sleepCalls.isEmpty)
    }

    /// With no limit on suggested delays (`maxRetryAfter: nil`), a suggested delay of the largest duration went to the
    /// clock as it was: the system clock's sleep trapped on its deadline. It is waited as the longest wait.
    @Test func aSuggestedDelayOfTheLargestDurationIsWaitedAsTheLongestWait() async throws {
        let clock = ManualClock()
        let store = PluginTestStore(["a": 1])
        store.failNext(
            StrataError.remote(.unexpectedResponse, "Later", status: 503, isRetryable: true, delay: .seconds(Int64.max))
        )
        let source = store.plugins([RetryPlugin(configuration: .init(maxRetryAfter: nil), clock: clock)])

        let task = Task { try await source.get(KeyQuery("a")) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(Int64.max))

        #expect(try await task.value == 1)
        #expect(clock.sleepCalls == [.longestWait])
    }

    @Test(
        arguments: [
            StrataError.notFound(),
            StrataError.remote(.unauthorized, "Forbidden", status: 403, isRetryable: true),
            StrataError(.notFound, "Gone", isRetryable: true),
            StrataError.remote(.unexpectedResponse, "Bad request", status: 400),
            StrataError(.dataSerialization, "Bad JSON"),
        ]
    )
    func stopsAtOnceOnErrorsThatAreNotRetryable(failure: StrataError) async throws {
        let clock = ManualClock()
        let store = PluginTestStore(["a": 1])
        store.failNext(failure)
        let source = store.plugins([retry(clock: clock)])

        let error = await #expect(throws: StrataError.self) { try await source.get(KeyQuery("a")) }

        #expect(error?.code == failure.code)
        #expect(store.calls(.get) == 1)
        #expect(clock.sleepCalls.isEmpty)
    }

    @Test func cancellationDuringTheBackoffStopsRetrying() async throws {
        // Given a call waiting to retry
        let clock = ManualClock()
        let store = PluginTestStore(["a": 1])
        store.failNext(Self.network, Self.network)
        let source = store.plugins([retry(clock: clock)])
        let task = Task { try await source.get(KeyQuery("a")) }
        await clock.waitForSleepers(1)

        // When the task is cancelled
        task.cancel()

        // Then it ends with a cancelled error and makes no further call
        let error = await #expect(throws: StrataError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(store.calls(.get) == 1)
    }

    @Test func retriesOnlyTheConfiguredMethods() async throws {
        let clock = ManualClock()
        let store = PluginTestStore<Int>()
        store.failNext(Self.network)
        let plugin = RetryPlugin(configuration: .init(methods: [.get, .getAll]), clock: clock)
        let source = store.plugins([plugin])

        await #expect(throws: StrataError.self) { try await source.put(1, in: KeyQuery("a")) }

        #expect(store.calls(.put) == 1)
    }
}
