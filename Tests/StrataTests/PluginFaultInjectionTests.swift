import Strata
import StrataTesting
import Testing

struct PluginFaultInjectionTests {
    private func failurePattern(seed: UInt64, rate: Double, calls: Int) async -> [Bool] {
        let plugin = FaultInjectionPlugin(configuration: .init(errorRate: rate), seed: seed, clock: ManualClock())
        let source = PluginTestStore(["a": 1]).plugins([plugin])
        var pattern: [Bool] = []
        for _ in 0..<calls {
            do {
                _ = try await source.get(KeyQuery("a"))
                pattern.append(false)
            } catch {
                pattern.append(true)
            }
        }
        return pattern
    }

    @Test func theSameSeedFailsTheSameCalls() async {
        let first = await failurePattern(seed: 42, rate: 0.3, calls: 200)
        let second = await failurePattern(seed: 42, rate: 0.3, calls: 200)
        let other = await failurePattern(seed: 43, rate: 0.3, calls: 200)

        #expect(first == second)
        #expect(first != other)
        // About 30 % fail (the seed fixes the exact count, so this cannot flake).
        #expect((40...80).contains(first.filter { $0 }.count))
    }

    @Test func anErrorRateOfOneThrowsTheConfiguredErrorWithoutCallingTheSource() async {
        let store = PluginTestStore(["a": 1])
        let injected = StrataError.remote(.unexpectedResponse, "Injected 503", status: 503)
        let source = store.plugins([FaultInjectionPlugin(configuration: .init(errorRate: 1, error: injected))])

        let error = await #expect(throws: StrataError.self) { try await source.get(KeyQuery("a")) }

        #expect(error?.cause(as: RemoteFailureStub.self)?.status == 503)
        #expect(store.calls(.get) == 0)
    }

    @Test func aFixedDelaySleepsOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let plugin = FaultInjectionPlugin(configuration: .init(delay: .fixed(.milliseconds(50))), clock: clock)
        let store = PluginTestStore(["a": 1])
        let source = store.plugins([plugin])

        let task = Task { try await source.get(KeyQuery("a")) }
        await clock.waitForSleepers(1)
        #expect(store.calls(.get) == 0)
        clock.advance(by: .milliseconds(50))

        #expect(try await task.value == 1)
        #expect(clock.sleepCalls == [.milliseconds(50)])
    }

    @Test func randomDelaysStayInTheirRangeAndRepeatWithTheSeed() async throws {
        func delays(seed: UInt64) async throws -> [Duration] {
            let clock = ManualClock()
            let range = Duration.milliseconds(10)...Duration.milliseconds(20)
            let plugin = FaultInjectionPlugin(configuration: .init(delay: .random(range)), seed: seed, clock: clock)
            let source = PluginTestStore(["a": 1]).plugins([plugin])
            for _ in 0..<5 {
                _ = try await drive(Task { try await source.get(KeyQuery("a")) }, clock: clock, sleeps: 1).get()
            }
            return clock.sleepCalls
        }

        let first = try await delays(seed: 9)

        #expect(first.count == 5)
        #expect(first.allSatisfy { $0 >= .milliseconds(10) && $0 <= .milliseconds(20) })
        #expect(try await delays(seed: 9) == first)
    }

    /// A delay of the largest duration trapped: drawn from a range that reaches it (the range's width overflowed),
    /// or fixed (the system clock's sleep trapped on its deadline). It is cut to the longest wait.
    @Test(
        arguments: [
            FaultInjectionPlugin.Delay.fixed(.seconds(Int64.max)),
            .random(.seconds(-1) ... .seconds(Int64.max)),
        ]
    )
    func aDelayOfTheLargestDurationIsCutToTheLongestWait(delay: FaultInjectionPlugin.Delay) async throws {
        let clock = ManualClock()
        let plugin = FaultInjectionPlugin(configuration: .init(delay: delay), seed: 1, clock: clock)
        let source = PluginTestStore(["a": 1]).plugins([plugin])

        let task = Task { try await source.get(KeyQuery("a")) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(Int64.max))

        #expect(try await task.value == 1)
        #expect(clock.sleepCalls.count == 1)
        #expect(clock.sleepCalls.allSatisfy { $0 > .zero && $0 <= .longestWait })
    }

    @Test func onlyTheConfiguredMethodsAreAffected() async throws {
        let store = PluginTestStore<Int>()
        let plugin = FaultInjectionPlugin(configuration: .init(errorRate: 1, methods: [.get]))
        let source = store.plugins([plugin])

        #expect(try await source.put(3, in: KeyQuery("a")) == 3)
        await #expect(throws: StrataError.self) { try await source.get(KeyQuery("a")) }
    }

    @Test func injectedNetworkErrorsAreRetriedByARetryPlugin() async throws {
        // Fault injection inside, retry outside: the retry plugin sees the injected failures.
        let clock = ManualClock()
        let store = PluginTestStore(["a": 1])
        let source = store.plugins([
            RetryPlugin(configuration: .init(maxAttempts: 50, backoff: .init(jitter: .none)), clock: clock),
            FaultInjectionPlugin(configuration: .init(errorRate: 0.5), seed: 3, clock: clock),
        ])

        // The same seed on its own tells how many injected failures come before the first success.
        let failures = try #require(await failurePattern(seed: 3, rate: 0.5, calls: 50).firstIndex(of: false))
        let outcome = await drive(Task { try await source.get(KeyQuery("a")) }, clock: clock, sleeps: failures)

        #expect(try outcome.get() == 1)
        #expect(store.calls(.get) == 1)
        #expect(failures > 0)
        #expect(clock.sleepCalls.count == failures)
    }
}
