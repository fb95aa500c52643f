#if Postgres
    import Strata
    import StrataTestSupport
    import Testing

    @testable import StrataPostgres

    /// A call that never ends, whatever happens to its task: as postgres-nio's statement sent on a connection as it
    /// closes, which is never answered. `release()` ends it, for the test's own cleanup.
    private final class EndlessCall: Sendable {
        private struct State {
            var waiting: CheckedContinuation<Void, Never>?
            var started: CheckedContinuation<Void, Never>?
        }

        private let state = Locked(State())

        /// Waits until released, ignoring cancellation.
        func run() async {
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    state.waiting = continuation
                    return state.started.take()
                }?.resume()
            }
        }

        /// Returns once ``run()`` waits.
        func untilRunning() async {
            await withCheckedContinuation { continuation in
                let isRunning = state.withLock { state in
                    if state.waiting == nil { state.started = continuation }
                    return state.waiting != nil
                }
                if isRunning { continuation.resume() }
            }
        }

        /// Ends ``run()``.
        func release() {
            state.withLock { $0.waiting.take() }?.resume()
        }
    }

    /// What a call that ends as soon as it is cancelled throws.
    private struct EndedWhenCancelled: Error {}

    /// Waits until its task is cancelled, then throws ``EndedWhenCancelled``.
    private func untilCancelled() async throws {
        while (try? await Task.sleep(for: .seconds(600))) != nil {}
        throw EndedWhenCancelled()
    }

    @Suite("PostgreSQL call deadline", .timeLimit(.minutes(1)))
    struct PostgresDeadlineTests {
        @Test("a call that never ends, even cancelled, ends its caller at the deadline, as expired")
        func anEndlessCallEndsAtTheDeadline() async throws {
            let endless = EndlessCall()
            defer { endless.release() }
            let outcome = await Result {
                try await PostgresDeadline(.milliseconds(50)).run { await endless.run() }
            }
            let expired = try #require(outcome.failure as? PostgresDeadline.Expired)
            #expect(expired.limit == .milliseconds(50))
            #expect(expired.cause == nil)
        }

        @Test("the error a timed-out call ends with once cancelled is the timeout's cause")
        func theCancelledCallsErrorIsTheCause() async throws {
            let outcome = await Result {
                try await PostgresDeadline(.milliseconds(50)).run { try await untilCancelled() }
            }
            let expired = try #require(outcome.failure as? PostgresDeadline.Expired)
            #expect(expired.cause is EndedWhenCancelled)
        }

        @Test("a cancelled caller ends as its call does once cancelled: the call is over before the caller goes on")
        func aCancelledCallerEndsAsItsCall() async throws {
            let (started, start) = AsyncStream.makeStream(of: Void.self)
            let caller = Task {
                await Result {
                    try await PostgresDeadline(.seconds(600)).run {
                        start.yield()
                        try await untilCancelled()
                    }
                }
            }
            for await _ in started { break }
            caller.cancel()
            #expect(await caller.value.failure is EndedWhenCancelled)
        }

        @Test("a cancelled caller of a call that never ends returns, cancelled")
        func aCancelledCallerOfAnEndlessCallReturns() async throws {
            let endless = EndlessCall()
            defer { endless.release() }
            let caller = Task {
                await Result { try await PostgresDeadline(.seconds(600)).run { await endless.run() } }
            }
            await endless.untilRunning()
            caller.cancel()
            #expect(await caller.value.failure is CancellationError)
        }

        @Test("a caller cancelled before the call begins returns cancelled, and the call never runs")
        func aCallerCancelledBeforeTheCallBegins() async throws {
            let ran = Locked(false)
            let caller = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await Result {
                    try await PostgresDeadline(.seconds(600)).run { ran.withLock { $0 = true } }
                }
            }
            #expect(await caller.value.failure is CancellationError)
            #expect(ran.withLock { $0 } == false)
        }

        @Test("a call that ends in time hands back its result and its error")
        func aCallInTime() async throws {
            let deadline = PostgresDeadline(.seconds(600))
            #expect(try await deadline.run { 42 } == 42)
            let outcome = await Result { try await deadline.run { throw StrataError(.conflict, "no") } }
            #expect((outcome.failure as? StrataError)?.code == .conflict)
        }
    }
#endif
