import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// Records the errors of the calls it sees.
private final class ErrorRecorder: StrataPlugin {
    private let errors = Locked<[String]>([])

    /// The codes of the errors seen, with the call's source and method, such as `refresh.get network`.
    var seen: [String] { errors.withLock { $0 } }

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        do {
            return try await next()
        } catch {
            let code = error.strataCode.map(String.init(describing:)) ?? "\(error)"
            errors.withLock { $0.append("\(call.source).\(call.method) \(code)") }
            throw error
        }
    }
}

/// A cache holding "old" for keys 1 and 2, stored at the clock's start and valid for 60 seconds, before a main
/// source that answers "new".
private struct StaleFixture {
    let clock = ManualClock()
    let gate = AsyncGate(isOpen: false)
    let recorder = ErrorRecorder()
    let main: PluginTestStore<String>
    let cache: EntryStore

    init(gated: Bool = false) {
        main = PluginTestStore(["1": "new", "2": "new"], gate: gated ? gate : nil)
        let old = StoredEntry(value: "old", storedAt: clock.now())
        cache = EntryStore(["1": old, "2": old])
    }

    var repository:
        CacheRepository<PluginTestStore<String>, ValidatedDataSource<EntryStore, StoredTimeValidator<String>>>
    {
        CacheRepository(
            main: main,
            cache: cache.validated(by: .maxAge(.seconds(60), clock: clock)),
            configuration: .init(refreshPlugins: [recorder])
        )
    }

    /// Reads with a window of 60 seconds after the value went stale.
    var operation: CacheSyncOperation { .cacheSync(staleWhileRevalidate: .seconds(60), clock: clock) }
}

/// An ``UnansweringMain`` that holds `probe`, whose lifetime tells whether anything still holds the repository.
private struct UnansweringProbedMain: GetDataSource {
    final class Probe: Sendable {}

    let main: UnansweringMain
    let probe: Probe

    func get(_ query: any Query) async throws -> String { try await main.get(query) }
    func getAll(_ query: any Query) async throws -> [String] { try await main.getAll(query) }
}

/// The cache; main for a value the cache never had; a stale value served as it is.
private struct CacheServingStale: RepositoryOperation {
    var plan: OperationPlan {
        OperationPlan(
            read: OperationPlan.Read(first: .cache, asksMainOn: .notFound, staleValues: .served),
            write: .cache,
            delete: nil
        )
    }
}

struct StaleWhileRevalidateTests {
    @Test func theBackgroundRefreshIsNotAStepOfTheCallThatStartedIt() async throws {
        // Given a stale value, and a main source whose calls a plugin reports to the trail of the call they serve
        let clock = ManualClock()
        let main = PluginTestStore(["1": "new"]).plugins([ErrorRecorder()], name: "main")
        let cache = EntryStore(["1": StoredEntry(value: "old", storedAt: clock.now())])
        let repository = CacheRepository(main: main, cache: cache.validated(by: .maxAge(.seconds(60), clock: clock)))
        let operation = CacheSyncOperation.cacheSync(staleWhileRevalidate: .seconds(60), clock: clock)
        clock.advance(by: .seconds(90))

        // When it is read inside a repository call's trail, which lasts until the refresh is done
        let call = PluginCall(method: .get, query: IdQuery(1), operation: operation, source: "users")
        let (trail, value) = try await CallTrail.run(for: call) { trail in
            let value = try await repository.get(IdQuery(1), operation: operation)
            await repository.waitForBackgroundRefreshes()
            return (trail, value)
        }
        #expect(value == "old")

        // Then the refresh's read of main is not a step of that call (it made the call a miss answered by main)
        #expect(cache.entry("1")?.value == "new")
        #expect(!trail.steps.contains { $0.source == "main" })
        #expect(trail.outcome(error: nil) == .staleServed)
    }

    @Test func aValueStaleInsideTheWindowIsReturnedAtOnceAndRefreshedInTheBackground() async throws {
        // Given a value that went stale 30 seconds ago, and main held at a gate
        let fixture = StaleFixture(gated: true)
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(90))

        // When it is read inside the 60-second window
        let value = try await repository.get(IdQuery(1), operation: fixture.operation)

        // Then the stale value comes back while main is still held, and the refresh stores main's value
        #expect(value == "old")
        await fixture.gate.waitForEntered(1)
        #expect(repository.backgroundRefreshCount == 1)
        fixture.gate.open()
        await repository.waitForBackgroundRefreshes()
        #expect(fixture.cache.entry("1")?.value == "new")
        #expect(fixture.main.calls(.get) == 1)
        #expect(repository.backgroundRefreshCount == 0)
    }

    /// A refresh held the repository (its stores, their folders) until main answered, and nothing could stop it:
    /// an app letting go of a repository over a file store could not open the folder again until main timed out.
    @Test(.timeLimit(.minutes(1)))
    func cancellingTheBackgroundRefreshesEndsThemAndKeepsTheStaleValue() async throws {
        // Given a stale value and a main that answers only when cancelled
        let fixture = StaleFixture()
        let main = UnansweringMain(clock: fixture.clock)
        let repository = CacheRepository(
            main: main,
            cache: fixture.cache.validated(by: .maxAge(.seconds(60), clock: fixture.clock))
        )
        fixture.clock.advance(by: .seconds(90))
        #expect(try await repository.get(IdQuery(1), operation: fixture.operation) == "old")
        await fixture.clock.waitForSleepers(1)
        #expect(repository.backgroundRefreshCount == 1)

        // When the refreshes are cancelled
        repository.cancelBackgroundRefreshes()
        await repository.waitForBackgroundRefreshes()

        // Then none runs, main saw the cancellation (its wait ended), and the stale value is still there — before,
        // the refresh's main read was shared (coalesced) and went on without it, to write main's answer back later
        #expect(repository.backgroundRefreshCount == 0)
        #expect(fixture.clock.sleeperCount == 0, "main saw the cancellation")
        #expect(fixture.cache.entry("1")?.value == "old")
    }

    /// Before, `waitForBackgroundRefreshes()` returned while the refresh's task still held its work, and with it the
    /// repository: an app that let the repository go then (a sign-out) and opened its store's folder again could
    /// find it still claimed.
    @Test func waitingForTheCancelledRefreshesLeavesNothingHoldingTheRepository() async throws {
        for _ in 0..<200 {
            let fixture = StaleFixture()
            var probe: UnansweringProbedMain.Probe? = UnansweringProbedMain.Probe()
            weak let watched = probe
            var repository: CacheRepository<UnansweringProbedMain, _>? = CacheRepository(
                main: UnansweringProbedMain(main: UnansweringMain(clock: fixture.clock), probe: probe.take()!),
                cache: fixture.cache.validated(by: .maxAge(.seconds(60), clock: fixture.clock))
            )
            fixture.clock.advance(by: .seconds(90))
            #expect(try await repository?.get(IdQuery(1), operation: fixture.operation) == "old")
            await fixture.clock.waitForSleepers(1)

            repository?.cancelBackgroundRefreshes()
            await repository?.waitForBackgroundRefreshes()
            repository = nil
            #expect(watched == nil)
        }
    }

    /// A list read asked main for every stale id before answering, so a main that was down failed it.
    @Test func aListStaleInsideTheWindowIsReturnedAtOnceAndRefreshedInTheBackground() async throws {
        // Given ids 1 and 2 stale for 30 seconds, and main down once
        let fixture = StaleFixture()
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(90))
        fixture.main.failNext(StrataError(.network, "down"))

        // When both are read inside the window
        let query = IdsQuery([1, 2])
        let call = PluginCall(method: .getAll, query: query, operation: fixture.operation, source: "users")
        let (trail, values) = try await CallTrail.run(for: call) { trail in
            (trail, try await repository.getAll(query, operation: fixture.operation))
        }
        await repository.waitForBackgroundRefreshes()

        // Then the stale values come back, reported so, and one refresh of both ran in the background (and failed)
        #expect(values == ["old", "old"])
        #expect(trail.outcome(error: nil) == .staleServed)
        #expect(fixture.recorder.seen == ["refresh.getAll network"])
        #expect(fixture.main.calls(.getAll) == 1)

        // And the next read is served stale too, and its refresh stores main's values
        #expect(try await repository.getAll(query, operation: fixture.operation) == ["old", "old"])
        await repository.waitForBackgroundRefreshes()
        #expect(fixture.cache.entry("1")?.value == "new")
        #expect(fixture.cache.entry("2")?.value == "new")
    }

    /// A list read of a plan that serves stale values, and asks main only for values the cache never had, threw
    /// the cache's *not valid* where `get` served the stale value.
    @Test func aListStaleIsServedByAPlanThatServesStaleValuesAsOneKeyIs() async throws {
        // Given ids 1 and 2 stale
        let fixture = StaleFixture()
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(90))

        // When they are read together, and one of them alone
        let values = try await repository.getAll(IdsQuery([1, 2]), operation: CacheServingStale())
        let value = try await repository.get(IdQuery(1), operation: CacheServingStale())

        // Then both reads serve the stale values, without asking main
        #expect(values == ["old", "old"])
        #expect(value == "old")
        #expect(fixture.main.calls(.getAll) + fixture.main.calls(.get) == 0)
    }

    @Test func aWriteDuringTheBackgroundRefreshIsNotOverwrittenByIt() async throws {
        // Given a stale value served at once while its refresh waits for main
        let fixture = StaleFixture(gated: true)
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(90))
        #expect(try await repository.get(IdQuery(1), operation: fixture.operation) == "old")
        await fixture.gate.waitForEntered(1)

        // When the cache is written before main answers the refresh
        _ = try await repository.put("local", in: IdQuery(1), operation: .cache)
        fixture.gate.open()
        await repository.waitForBackgroundRefreshes()

        // Then the refresh leaves the newer value in place
        #expect(fixture.cache.entry("1")?.value == "local")
    }

    /// The value went stale at 60 seconds; the window closes at 120 (exclusive).
    @Test(arguments: [120, 121])
    func aValueStaleOutsideTheWindowWaitsForMain(secondsAfterStoring: Int) async throws {
        // Given a value that went stale 60 seconds ago or more
        let fixture = StaleFixture()
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(secondsAfterStoring))

        // When it is read with a 60-second window
        let value = try await repository.get(IdQuery(1), operation: fixture.operation)

        // Then main answers before the read returns, and nothing runs in the background
        #expect(value == "new")
        #expect(fixture.main.calls(.get) == 1)
        #expect(repository.backgroundRefreshCount == 0)
    }

    @Test func aHundredConcurrentStaleReadersShareOneRefresh() async throws {
        // Given a stale value inside the window, and main held at a gate
        let fixture = StaleFixture(gated: true)
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(61))

        // When 100 readers read it at once
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 {
                group.addTask { try await repository.get(IdQuery(1), operation: fixture.operation) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then every reader got the stale value, and main was asked once
        #expect(values == Array(repeating: "old", count: 100))
        fixture.gate.open()
        await repository.waitForBackgroundRefreshes()
        #expect(fixture.main.calls(.get) == 1)
        #expect(try await repository.get(IdQuery(1), operation: fixture.operation) == "new")
    }

    @Test func aFailedRefreshKeepsTheStaleValueAndReachesTheRefreshPlugins() async throws {
        // Given a stale value inside the window, and a main source that fails once
        let fixture = StaleFixture()
        let repository = fixture.repository
        fixture.main.failNext(StrataError(.network, "offline"))
        fixture.clock.advance(by: .seconds(70))

        // When it is read
        let value = try await repository.get(IdQuery(1), operation: fixture.operation)
        await repository.waitForBackgroundRefreshes()

        // Then the caller got the stale value, the cache still holds it, and the plugin saw the failure
        #expect(value == "old")
        #expect(fixture.cache.entry("1")?.value == "old")
        #expect(fixture.recorder.seen == ["refresh.get network"])

        // And the next read refreshes again
        #expect(try await repository.get(IdQuery(1), operation: fixture.operation) == "old")
        await repository.waitForBackgroundRefreshes()
        #expect(fixture.cache.entry("1")?.value == "new")
    }

    @Test func theRefreshedValueReachesAnOpenStream() async throws {
        // Given a stream on the stale key that shows it
        let fixture = StaleFixture(gated: true)
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(61))
        // Every response kept: with the default buffer of one, a consumer slower than the first read
        // sees its value without the loading before it (seen under ThreadSanitizer).
        var responses = repository.stream(IdQuery(1), operation: .cacheIgnoringValidation, bufferingNewest: 16)
            .makeAsyncIterator()
        #expect(await responses.next()?.isLoading == true)
        #expect(await responses.next()?.value == "old")

        // When a reader is served stale and the refresh completes
        #expect(try await repository.get(IdQuery(1), operation: fixture.operation) == "old")
        fixture.gate.open()
        await repository.waitForBackgroundRefreshes()

        // Then the stream shows main's value
        #expect(await responses.next()?.value == "new")
    }

    @Test func aStreamServedStaleByARepositorySourceShowsTheValueItsRefreshBrings() async throws {
        // Given a stream over a repository as a source, which serves a value stale for 30 seconds and refreshes it
        let fixture = StaleFixture(gated: true)
        let inner = fixture.repository
        let outer = SingleDataSourceRepository(inner.asDataSource(operation: fixture.operation))
        fixture.clock.advance(by: .seconds(90))
        var responses = outer.stream(IdQuery(1), bufferingNewest: 16).makeAsyncIterator()
        #expect(await responses.next()?.isLoading == true)
        #expect(await responses.next()?.value == "old")

        // When the refresh the stream's read started brings main's value
        fixture.gate.open()
        await inner.waitForBackgroundRefreshes()

        // Then the stream shows it: the refresh is not one of the stream's re-reads, whose writes streams ignore
        #expect(fixture.cache.entry("1")?.value == "new")
        #expect(await responses.next()?.value == "new")
    }

    @Test func aStaleValueWhoseValidatorCannotTellWhenItWentStaleWaitsForMain() async throws {
        let fixture = StaleFixture()
        let repository = CacheRepository(
            main: fixture.main,
            cache: fixture.cache.validated(by: ClosureValidator { _, _ in false })
        )

        #expect(try await repository.get(IdQuery(1), operation: fixture.operation) == "new")
        #expect(repository.backgroundRefreshCount == 0)
    }
}
