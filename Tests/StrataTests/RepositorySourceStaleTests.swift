import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// A value that knows its id, so a repository can tell which ids main did not answer.
private struct Member: Identifiable, Hashable, Sendable {
    let id: Int
}

/// Three tiers: an outer repository whose cache is `memory` and whose main is an inner repository, a disk tier whose
/// entries for keys 1 ("old") and 2 ("old 2") were stored at the clock's start and are valid for 60 seconds, over an
/// API that is down.
private struct ThreeTiers {
    let clock = ManualClock()
    let api = ScriptedDataSource(["1": "new"])
    let disk: EntryStore
    let memory = EntryStore()
    let mainAnswers = Locked(0)

    init() {
        disk = EntryStore([
            "1": StoredEntry(value: "old", storedAt: clock.now()),
            "2": StoredEntry(value: "old 2", storedAt: clock.now()),
        ])
        api.fail(.get, with: StrataError(.network, "The API is down"))
    }

    var inner: CacheRepository<ScriptedDataSource<String>, ValidatedDataSource<EntryStore, StoredTimeValidator<String>>>
    {
        CacheRepository(main: api, cache: disk.validated(by: .maxAge(.seconds(60), clock: clock)))
    }

    /// The outer repository, over the inner one read with `operation`, counting what it takes for main's answers.
    func outer(
        _ operation: any RepositoryOperation
    ) -> CacheRepository<
        CacheRepositorySource<
            ScriptedDataSource<String>, ValidatedDataSource<EntryStore, StoredTimeValidator<String>>
        >,
        EntryStore
    > {
        CacheRepository(main: inner.asDataSource(operation: operation), cache: memory)
            .observingMainAnswers { [mainAnswers] _ in mainAnswers.withLock { $0 += 1 } }
    }
}

/// Holds every call at a gate until the test opens it.
private struct HeldCalls: StrataPlugin {
    let gate = AsyncGate(isOpen: false)

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        await gate.enter()
        return try await next()
    }
}

/// Before, a repository used as a source reported nothing of a stale cached value it served: the repository above
/// took it for main's fresh answer, stored it as current, counted a miss and told `onMainAnswer` main was reachable.
struct RepositorySourceStaleTests {
    @Test func aStaleValueTheInnerTierServesIsStaleInTheOuterOne() async throws {
        // Given a disk entry 30 seconds past its lifetime, and an inner tier that serves it when the API fails
        let tiers = ThreeTiers()
        let outer = tiers.outer(.cacheSync(fallback: { _ in true }))
        tiers.clock.advance(by: .seconds(90))

        // When the outer repository reads it
        let response = try await outer.getResponse(IdQuery(1), operation: .cacheSync)
        let (_, outcome) = try await outer.getReportingOutcome(IdQuery(1), operation: .cacheSync)

        // Then it is stale there too, served as such, not stored in memory, and not main's answer
        #expect(response.value == "old")
        #expect(response.isStale)
        #expect(outcome == .staleServed)
        #expect(tiers.memory.entry("1") == nil)
        #expect(tiers.mainAnswers.withLock { $0 } == 0)

        // And once the API answers, the fresh value is stored and main's answer told
        tiers.api.clearScripts()
        let fresh = try await outer.getResponse(IdQuery(1), operation: .cacheSync)
        #expect(fresh.value == "new")
        #expect(!fresh.isStale)
        #expect(tiers.memory.entry("1")?.value == "new")
        #expect(tiers.mainAnswers.withLock { $0 } == 1)
    }

    @Test func aValueServedInsideTheInnerTiersStaleWhileRevalidateWindowIsStaleInTheOuterOne() async throws {
        let tiers = ThreeTiers()
        let outer = tiers.outer(.cacheSync(staleWhileRevalidate: .seconds(60), clock: tiers.clock))
        tiers.clock.advance(by: .seconds(90))

        let response = try await outer.getResponse(IdQuery(1), operation: .cacheSync)
        await tiers.inner.waitForBackgroundRefreshes()

        #expect(response.value == "old")
        #expect(response.isStale)
        #expect(tiers.memory.entry("1") == nil)
    }

    @Test func aListOfStaleValuesFromTheInnerTierIsStaleInTheOuterOne() async throws {
        let tiers = ThreeTiers()
        tiers.api.fail(.getAll, with: StrataError(.network, "The API is down"))
        let outer = tiers.outer(.cacheSync(fallback: { _ in true }))
        tiers.clock.advance(by: .seconds(90))

        let (values, outcome) = try await CallTrail.run(
            for: PluginCall(method: .getAll, query: IdsQuery([1]), source: "outer")
        ) { trail in
            let values = try await outer.getAll(IdsQuery([1]), operation: .cacheSync)
            return (values, trail.outcome(error: nil))
        }

        #expect(values == ["old"])
        #expect(outcome == .staleServed)
        #expect(tiers.memory.entry("1") == nil)
        #expect(tiers.mainAnswers.withLock { $0 } == 0)
    }

    @Test func aStreamOverARepositorySourceShowsAStaleValueAsStale() async throws {
        let tiers = ThreeTiers()
        let single = SingleDataSourceRepository(
            tiers.inner.asDataSource(operation: .cacheSync(fallback: { _ in true }))
        )
        tiers.clock.advance(by: .seconds(90))

        var responses = single.stream(IdQuery(1), bufferingNewest: 16).makeAsyncIterator()

        #expect(await responses.next()?.isLoading == true)
        let response = await responses.next()
        #expect(response?.value == "old")
        #expect(response?.isStale == true)
    }

    /// Before, a batch of the inner tier ran in the task of the read that sent it: only that read heard the batch's
    /// values were stale, and the other took its stale value for main's fresh one and stored it.
    @Test func staleValuesABatchOfTheInnerTierServesAreStaleToEveryReadInTheBatch() async throws {
        // Given two disk entries 30 seconds past their lifetime, an API that is down, and batches of two
        let tiers = ThreeTiers()
        tiers.api.fail(.getAll, with: StrataError(.network, "The API is down"))
        let batched = tiers.inner.asDataSource(operation: .cacheSync(fallback: { _ in true }))
            .batched(maxBatchSize: 2, window: .seconds(1), clock: tiers.clock)
        let outer = CacheRepository(main: batched, cache: tiers.memory)
        tiers.clock.advance(by: .seconds(90))

        // When both are read at once, in one batch
        async let first = outer.getResponse(IdQuery(1), operation: .cacheSync)
        async let second = outer.getResponse(IdQuery(2), operation: .cacheSync)
        let responses = try await [first, second]

        // Then both are stale, and neither is stored in memory
        #expect(responses.map(\.value) == ["old", "old 2"])
        #expect(responses.map(\.isStale) == [true, true])
        #expect(tiers.memory.entry("1") == nil)
        #expect(tiers.memory.entry("2") == nil)
    }

    /// Before, a read of the inner tier shared by a coalescing plugin ran in the task of the read that started it:
    /// only that read heard its value was stale, and the read that joined took it for main's fresh value and
    /// stored it.
    @Test(.timeLimit(.minutes(1)))
    func aStaleValueAReadSharedByCoalescingServesIsStaleToEveryReadThatShares() async throws {
        // Given a disk entry 30 seconds past its lifetime, an API that is down, and reads of the inner tier shared
        let tiers = ThreeTiers()
        let coalescing = CoalescingPlugin()
        let held = HeldCalls()
        let shared = tiers.inner.asDataSource(operation: .cacheSync(fallback: { _ in true }))
            .plugins([coalescing, held])
        let outer = CacheRepository(main: shared, cache: tiers.memory, configuration: .init(coalescesMainReads: false))
        tiers.clock.advance(by: .seconds(90))

        // When two reads share one read of the inner tier
        async let first = outer.getResponse(IdQuery(1), operation: .cacheSync)
        async let second = outer.getResponse(IdQuery(1), operation: .cacheSync)
        for await _ in held.gate.arrivals { break }
        await poll { coalescing.waiterCount >= 2 }
        held.gate.open()
        let responses = try await [first, second]

        // Then both are stale, and the value is not stored in memory
        #expect(responses.map(\.value) == ["old", "old"])
        #expect(responses.map(\.isStale) == [true, true])
        #expect(tiers.memory.entry("1") == nil)
        #expect(tiers.api.callCount(.get) == 1)
    }

    /// Before, the inner tier's partial answer went up as it was: its values were those of the keys the outer tier
    /// asked it for, so they lined up with the wrong keys. The values it carries have no metadata (no expiry, no rule
    /// not to store them), so the outer tier does not store them.
    @Test func aPartialAnswerOfTheInnerTierLinesUpWithTheKeysAsked() async throws {
        // Given memory holding id 1, and an inner tier whose API has 2 but not 3
        let api = ScriptedDataSource(["2": Member(id: 2)])
        api.script(.getAll, .values([Member(id: 2)]))
        let inner = CacheRepository(main: api, cache: ScriptedDataSource<Member>())
        let memory = ScriptedDataSource(["1": Member(id: 1)])
        let outer = CacheRepository(main: inner.asDataSource(operation: .cacheSync), cache: memory)

        // When 1, 2 and 3 are read
        let error = await #expect(throws: StrataError.self) {
            try await outer.getAll(IdsQuery([1, 2, 3]), operation: .cacheSync)
        }

        // Then the read fails with not found, with what it found in the order asked; 2 stays in the inner tier
        #expect(error?.code == .notFound)
        #expect(error?.partialValues(as: Member.self) == [Member(id: 1), Member(id: 2), nil])
        #expect(memory.contents["2"] == nil)
    }
}
