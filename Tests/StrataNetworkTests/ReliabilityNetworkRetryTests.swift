import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

/// Bursts of 5xx from a real server, retried by ``RetryPlugin`` on a ``ManualClock``: the server sees
/// exactly the requests the plan allows, and the pauses are the backoff's or the server's `Retry-After`.
struct ReliabilityNetworkRetryTests {
    /// A server that fails `failures` times with `status` and `headers`, then answers `{"name":"ok"}`.
    private static func flakyServer(
        failures: Int,
        status: Int = 503,
        headers: @escaping @Sendable () -> [String: String] = { [:] }
    ) async throws -> LoopbackServer {
        let served = Locked(0)
        return try await LoopbackServer.start([
            (
                "GET /flaky",
                { _ in
                    let number = served.withLock { count -> Int in
                        count += 1
                        return count
                    }
                    guard number > failures else { return ServerReply(status: status, headers: headers()) }
                    return ServerReply(
                        status: 200,
                        headers: ["Content-Type": "application/json"],
                        body: Data(#"{"name":"ok"}"#.utf8)
                    )
                }
            )
        ])
    }

    /// A network source for `/flaky` with a retry plugin sleeping on `clock`.
    private static func source(
        server: LoopbackServer,
        clock: ManualClock,
        retry: RetryPlugin.Configuration
    ) -> PluggedDataSource<NetworkGetDataSource<Item>> {
        let client = HTTPClient(
            transport: URLSessionTransport(),
            configuration: HTTPClient.Configuration(timeout: .seconds(30), clock: clock)
        )
        return NetworkGetDataSource<Item>(client: client) { _ in HTTPRequest(baseURL: server.baseURL, path: "flaky") }
            .plugins([RetryPlugin(configuration: retry, clock: clock)])
    }

    /// Starts a read whose end the test can see while it waits for retry pauses.
    private static func startRead(
        _ source: PluggedDataSource<NetworkGetDataSource<Item>>
    ) -> (task: Task<Item, any Error>, finished: Locked<Bool>) {
        let finished = Locked(false)
        let task = Task {
            defer { finished.withLock { $0 = true } }
            return try await source.get(KeyQuery("item"))
        }
        return (task, finished)
    }

    /// Waits until a retry pause is sleeping on `clock` (``poll(within:until:)``, 20 s at most); `false` when the
    /// read ended first, or no pause came.
    private static func waitForPause(on clock: ManualClock, unless finished: Locked<Bool>) async -> Bool {
        _ = await poll(within: .seconds(20)) { clock.sleeperCount > 0 || finished.withLock { $0 } }
        return clock.sleeperCount > 0
    }

    @Test(.timeLimit(.minutes(1)))
    func threeServiceUnavailableThenSuccessMakesExactlyFourRequestsWithBackoffPauses() async throws {
        // Given a server that answers 503 three times, then 200, and a plugin with 100 ms × 2ⁿ pauses
        let server = try await Self.flakyServer(failures: 3)
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let backoff = RetryPlugin.Backoff(
            initial: .milliseconds(100),
            multiplier: 2,
            maximum: .seconds(10),
            jitter: .none
        )
        let source = Self.source(server: server, clock: clock, retry: .init(maxAttempts: 5, backoff: backoff))

        // When the read runs, the clock moving only by each pause the plugin asked for
        let (task, finished) = Self.startRead(source)
        for (retry, pause) in [Duration.milliseconds(100), .milliseconds(200), .milliseconds(400)].enumerated() {
            try #require(await Self.waitForPause(on: clock, unless: finished), "retry \(retry + 1) never paused")
            // Then no new request leaves before its pause is over
            #expect(server.requestCount(path: "/flaky") == retry + 1)
            #expect(clock.sleepCalls.last == pause)
            clock.advance(by: pause)
        }
        let item = try await task.value

        // Then the fourth request succeeded: four requests server-side, three pauses on the backoff's schedule
        #expect(item == Item(name: "ok"))
        #expect(server.requestCount(path: "/flaky") == 4)
        #expect(clock.sleepCalls == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
    }

    @Test(.timeLimit(.minutes(1)))
    func aBurstLongerThanTheAttemptsEndsInTheLastTypedError() async throws {
        // Given a server that answers 500 five times and a plugin allowed three attempts
        let server = try await Self.flakyServer(failures: 5, status: 500)
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let backoff = RetryPlugin.Backoff(initial: .seconds(1), jitter: .none)
        let source = Self.source(server: server, clock: clock, retry: .init(maxAttempts: 3, backoff: backoff))

        // When
        let (task, finished) = Self.startRead(source)
        for pause in [Duration.seconds(1), .seconds(2)] {
            try #require(await Self.waitForPause(on: clock, unless: finished), "no pause of \(pause) came")
            clock.advance(by: pause)
        }
        let error = await strataError { _ = try await task.value }

        // Then
        #expect(error?.code == .unexpectedResponse)
        #expect(error?.httpFailure?.status == 500)
        #expect(server.requestCount(path: "/flaky") == 3)
        #expect(clock.sleepCalls == [.seconds(1), .seconds(2)])
    }

    @Test(.timeLimit(.minutes(1)))
    func retryAfterInSecondsIsWaitedExactlyInsteadOfTheBackoff() async throws {
        // Given a server that answers 503 with Retry-After: 7 twice, then 200
        let server = try await Self.flakyServer(failures: 2, headers: { ["Retry-After": "7"] })
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let backoff = RetryPlugin.Backoff(initial: .milliseconds(100), jitter: .none)
        let source = Self.source(server: server, clock: clock, retry: .init(maxAttempts: 4, backoff: backoff))

        // When
        let (task, finished) = Self.startRead(source)
        for retry in 1...2 {
            try #require(await Self.waitForPause(on: clock, unless: finished), "retry \(retry) never paused")
            #expect(server.requestCount(path: "/flaky") == retry)
            // Half the wait is not enough: the request waits for the whole of it
            clock.advance(by: .milliseconds(3_500))
            #expect(clock.sleeperCount == 1)
            clock.advance(by: .milliseconds(3_500))
        }
        let item = try await task.value

        // Then
        #expect(item == Item(name: "ok"))
        #expect(server.requestCount(path: "/flaky") == 3)
        #expect(clock.sleepCalls == [.seconds(7), .seconds(7)])
    }

    @Test(.timeLimit(.minutes(1)))
    func retryAfterAsAnHTTPDateIsWaitedUntilThatDate() async throws {
        // Given a server that answers 429 with a Retry-After date 45 s after the (manual) time of the
        // response (within the plugin's default 60 s limit)
        let clock = ManualClock()
        let server = try await Self.flakyServer(
            failures: 1,
            status: 429,
            headers: { ["Retry-After": HTTPDate.format(clock.now().addingTimeInterval(45))] }
        )
        defer { Task { await server.stop() } }
        let backoff = RetryPlugin.Backoff(initial: .milliseconds(100), jitter: .none)
        let source = Self.source(server: server, clock: clock, retry: .init(maxAttempts: 3, backoff: backoff))

        // When
        let (task, finished) = Self.startRead(source)
        try #require(await Self.waitForPause(on: clock, unless: finished), "the retry never paused")
        #expect(server.requestCount(path: "/flaky") == 1)
        clock.advance(by: .seconds(45))
        let item = try await task.value

        // Then
        #expect(item == Item(name: "ok"))
        #expect(server.requestCount(path: "/flaky") == 2)
        #expect(clock.sleepCalls == [.seconds(45)])
    }

    @Test(.timeLimit(.minutes(1)))
    func aRetryAfterDateInThePastRetriesAtOnce() async throws {
        let clock = ManualClock()
        let server = try await Self.flakyServer(
            failures: 1,
            headers: { ["Retry-After": HTTPDate.format(clock.now().addingTimeInterval(-3_600))] }
        )
        defer { Task { await server.stop() } }
        let source = Self.source(server: server, clock: clock, retry: .init(maxAttempts: 2))

        let item = try await source.get(KeyQuery("item"))

        #expect(item == Item(name: "ok"))
        #expect(server.requestCount(path: "/flaky") == 2)
        #expect(clock.sleepCalls == [.zero])
    }

    @Test(.timeLimit(.minutes(1)))
    func aRetryAfterLongerThanAllowedFailsAtOnceWithoutWaiting() async throws {
        // Given a server that asks for an hour and a plugin that waits at most a minute
        let server = try await Self.flakyServer(failures: 1, headers: { ["Retry-After": "3600"] })
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let source = Self.source(
            server: server,
            clock: clock,
            retry: .init(maxAttempts: 3, maxRetryAfter: .seconds(60))
        )

        // When
        let error = await strataError { _ = try await source.get(KeyQuery("item")) }

        // Then the 503 is returned with the server's wait, and no second request was made
        #expect(error?.code == .unexpectedResponse)
        #expect(error?.httpFailure?.status == 503)
        #expect(error?.suggestedRetryDelay == .seconds(3_600))
        #expect(server.requestCount(path: "/flaky") == 1)
        #expect(clock.sleepCalls.isEmpty)
    }
}
