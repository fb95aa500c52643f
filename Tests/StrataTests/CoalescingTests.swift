import Dispatch
import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// Counts how often an operation ran and whether it saw a cancellation.
private final class OperationCounter: Sendable {
    private let state = Locked((runs: 0, sawCancellation: false))

    var runs: Int { state.withLock { $0.runs } }
    var sawCancellation: Bool { state.withLock { $0.sawCancellation } }

    func run() { state.withLock { $0.runs += 1 } }
    func noteCancellation() { state.withLock { $0.sawCancellation = $0.sawCancellation || Task.isCancelled } }
}

/// Runs jobs one at a time, in the order they are enqueued.
private final class SerialTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable is sound: the queue is the only state, and a dispatch queue is thread-safe.
    private let queue = DispatchQueue(label: "strata.tests.serial-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

struct CoalescingTests {
    // MARK: - RequestCoalescer

    @Test func aThousandConcurrentCallersShareOneRun() async throws {
        // Given an operation held at a gate
        let coalescer = RequestCoalescer<String, Int>()
        let gate = AsyncGate(isOpen: false)
        let counter = OperationCounter()

        // When 1,000 callers ask for one key while it is held
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    try await coalescer.run(key: "k") {
                        counter.run()
                        await gate.enter()
                        return 42
                    }
                }
            }
            await poll { coalescer.waiterCount(for: "k") == 1_000 }
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then the operation ran once and everyone got its value
        #expect(counter.runs == 1)
        #expect(results.count == 1_000 && results.allSatisfy { $0 == 42 })
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func theRunStartsOnTheFirstCallersThreadBeforeItWaits() async throws {
        guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return }
        // Given a caller on a serial executor, and a probe queued there just before the caller starts the run
        let executor = SerialTaskExecutor()
        let coalescer = RequestCoalescer<String, Int>()
        let gate = AsyncGate(isOpen: false)
        let started = Locked(false)
        let probe = Locked<Task<Bool, Never>?>(nil)
        let caller = Task(executorPreference: executor) {
            probe.withLock { $0 = Task(executorPreference: executor) { started.withLock { $0 } } }
            return try await coalescer.run(key: "k") {
                started.withLock { $0 = true }
                await gate.enter()
                return 7
            }
        }

        // When the probe runs, once the caller waits
        await poll { probe.withLock { $0 != nil } }
        let sawTheRunStarted = await probe.withLock { $0 }?.value
        gate.open()

        // Then the run had begun on the caller's thread, not queued behind the probe
        #expect(sawTheRunStarted == true)
        #expect(try await caller.value == 7)
    }

    @Test func aFailureReachesEveryWaiter() async throws {
        let coalescer = RequestCoalescer<String, Int>()
        let gate = AsyncGate(isOpen: false)

        let codes = await withTaskGroup(of: StrataError.Code?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await coalescer.run(key: "k") {
                            await gate.enter()
                            throw StrataError(.network, "Down")
                        }
                        return nil
                    } catch {
                        return error.strataCode
                    }
                }
            }
            await poll { coalescer.waiterCount(for: "k") == 10 }
            gate.open()
            return await group.reduce(into: []) { $0.append($1) }
        }

        #expect(codes == Array(repeating: .network, count: 10))
        #expect(gate.entered == 1)
    }

    @Test func aCancelledWaiterDoesNotCancelTheOthers() async throws {
        // Given two waiters on one held run
        let coalescer = RequestCoalescer<String, Int>()
        let gate = AsyncGate(isOpen: false)
        let counter = OperationCounter()
        let operation: @Sendable () async throws -> Int = {
            counter.run()
            await gate.enter()
            counter.noteCancellation()
            return 7
        }
        let leaving = Task { try await coalescer.run(key: "k", operation: operation) }
        let staying = Task { try await coalescer.run(key: "k", operation: operation) }
        await poll { coalescer.waiterCount(for: "k") == 2 }

        // When one is cancelled
        leaving.cancel()
        let error = await #expect(throws: StrataError.self) { try await leaving.value }

        // Then it stops waiting at once, and the shared run goes on for the other
        #expect(error?.code == .cancelled)
        #expect(coalescer.waiterCount(for: "k") == 1)
        gate.open()
        #expect(try await staying.value == 7)
        #expect(counter.runs == 1)
        #expect(!counter.sawCancellation)
    }

    @Test func aCallerCancelledBeforeItArrivesDoesNotStartARun() async throws {
        let coalescer = RequestCoalescer<String, Int>()
        let counter = OperationCounter()

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await coalescer.run(key: "k") {
                counter.run()
                return 1
            }
        }

        await #expect(throws: StrataError.self) { try await task.value }
        #expect(counter.runs == 0)
    }

    @Test func theKeyIsFreeAgainOnceTheRunEnds() async throws {
        let coalescer = RequestCoalescer<Int, Int>()
        let counter = OperationCounter()

        for _ in 0..<3 {
            _ = try await coalescer.run(key: 1) {
                counter.run()
                return 1
            }
        }

        #expect(counter.runs == 3)
    }

    @Test func differentKeysRunSeparately() async throws {
        let coalescer = RequestCoalescer<Int, Int>()
        let gate = AsyncGate(isOpen: false)

        async let one = coalescer.run(key: 1) {
            await gate.enter()
            return 1
        }
        async let two = coalescer.run(key: 2) {
            await gate.enter()
            return 2
        }
        await gate.waitForEntered(2)
        gate.open()

        #expect(try await [one, two] == [1, 2])
    }

    // MARK: - CoalescingPlugin

    @Test func thePluginSharesOneSourceCallAmongAThousandGets() async throws {
        let gate = AsyncGate(isOpen: false)
        let store = PluginTestStore(["a": "value"], gate: gate)
        let plugin = CoalescingPlugin()
        let source = store.plugins([plugin])

        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1_000 { group.addTask { try await source.get(KeyQuery("a")) } }
            await poll { plugin.waiterCount == 1_000 }
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(store.calls(.get) == 1)
        #expect(results.count == 1_000 && results.allSatisfy { $0 == "value" })
    }

    @Test func thePluginSharesGetAllsApartFromGets() async throws {
        let gate = AsyncGate(isOpen: false)
        let store = PluginTestStore(["a": 1, "b": 2], gate: gate)
        let plugin = CoalescingPlugin()
        let source = store.plugins([plugin])

        async let all1 = source.getAll(IdsQuery(["a", "b"]))
        async let all2 = source.getAll(IdsQuery(["a", "b"]))
        async let one1 = source.get(KeyQuery("a"))
        async let one2 = source.get(KeyQuery("a"))
        await poll { plugin.waiterCount == 4 }
        gate.open()

        #expect(try await [all1, all2] == [[1, 2], [1, 2]])
        #expect(try await [one1, one2] == [1, 1])
        #expect(store.calls(.getAll) == 1)
        #expect(store.calls(.get) == 1)
    }

    @Test func queriesThatAreNotHashableAreNotShared() async throws {
        let gate = AsyncGate(isOpen: false)
        let store = PluginTestStore(["a": 1], gate: gate)
        let source = store.plugins([CoalescingPlugin()])

        async let first = source.get(PluginTestUnhashableQuery(key: "a"))
        async let second = source.get(PluginTestUnhashableQuery(key: "a"))
        await gate.waitForEntered(2)
        gate.open()

        #expect(try await [first, second] == [1, 1])
        #expect(store.calls(.get) == 2)
    }

    @Test func writesAreNeverShared() async throws {
        let store = PluginTestStore<Int>()
        let source = store.plugins([CoalescingPlugin()])

        async let first = source.put(1, in: KeyQuery("a"))
        async let second = source.put(1, in: KeyQuery("a"))
        _ = try await [first, second]
        try await source.delete(KeyQuery("a"))

        #expect(store.calls(.put) == 2)
        #expect(store.calls(.delete) == 1)
    }

    // MARK: - CacheRepository

    @Test func aColdCacheHitByAHundredReadersMakesOneMainCall() async throws {
        // Given an empty cache and a main source held at a gate
        let gate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["a": 1], gate: gate)
        let cache = PluginTestStore<Int>()
        let repository = CacheRepository(main: main, cache: cache)

        // When 100 CacheSync reads arrive together
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await repository.get(KeyQuery("a"), operation: .cacheSync) } }
            await poll { repository.mainReads.waiterCount == 100 }
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then one main read and one cache write served them all
        #expect(results == Array(repeating: 1, count: 100))
        #expect(cache.calls(.get) == 100)
        #expect(main.calls(.get) == 1)
        #expect(cache.calls(.put) == 1)
        #expect(cache.peek("a") == 1)
    }

    @Test func aReaderThatMissedBeforeAnotherSharedReadStoredFindsItsValueInsteadOfReadingMainAgain() async throws {
        // Given a cache whose first read misses and is then held before it answers
        let main = PluginTestStore(["a": 1])
        let cache = MissThenHoldCache()
        let repository = CacheRepository(main: main, cache: cache)

        // When a second reader misses, reads main and stores its answer while the first is held, then the first goes on
        let first = Task { try await repository.getEntry(KeyQuery("a"), operation: .cacheSync).value }
        await cache.held.waitForEntered(1)
        let second = try await repository.getEntry(KeyQuery("a"), operation: .cacheSync).value
        cache.held.open()
        let firstValue = try await first.value

        // Then main was read once: the first reader's shared read found the value in the cache
        #expect(firstValue == 1 && second == 1)
        #expect(main.calls(.get) == 1)
        #expect(cache.store.calls(.get) == 3)
        #expect(cache.store.calls(.put) == 1)
    }

    @Test func aReaderWithNoSharedReadEndingMeanwhileAsksTheCacheOnce() async throws {
        let main = PluginTestStore(["a": 1])
        let cache = PluginTestStore<Int>()
        let repository = CacheRepository(main: main, cache: cache)

        _ = try await repository.getEntry(KeyQuery("a"), operation: .cacheSync)
        cache.failNext(StrataError.notFound())
        _ = try await repository.getEntry(KeyQuery("a"), operation: .cacheSync)

        #expect(main.calls(.get) == 2)
        #expect(cache.calls(.get) == 2)
    }

    @Test func coalescedGetAllMissesMakeOneMainCall() async throws {
        let gate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["a": 1, "b": 2], gate: gate)
        let cache = PluginTestStore<Int>()
        let repository = CacheRepository(main: main, cache: cache)

        let results = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<50 { group.addTask { try await repository.getAll(IdsQuery(["a", "b"])) } }
            await poll { repository.mainReads.waiterCount == 50 }
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(results == Array(repeating: [1, 2], count: 50))
        #expect(main.calls(.getAll) == 1)
        #expect(cache.calls(.putAll) == 1)
    }

    @Test func withCoalescingOffEveryMissReadsTheMainSource() async throws {
        let gate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["a": 1], gate: gate)
        let cache = PluginTestStore<Int>()
        let repository = CacheRepository(
            main: main,
            cache: cache,
            configuration: .init(coalescesMainReads: false)
        )

        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await repository.get(KeyQuery("a"), operation: .cacheSync) } }
            await gate.waitForEntered(100)
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(results == Array(repeating: 1, count: 100))
        #expect(main.calls(.get) == 100)
        #expect(cache.calls(.put) == 100)
        #expect(repository.mainReads.inFlightCount == 0)
    }

    @Test func aSharedMainFailureReachesEveryReaderAndEachKeepsItsFallback() async throws {
        // Given a cache holding a stale value and a main source that will fail
        let gate = AsyncGate(isOpen: false)
        let main = PluginTestStore<Int>(gate: gate)
        main.failNext(StrataError(.network, "Down"))
        let cache = PluginTestStore<Int>()
        cache.failNext(.notValid(staleValue: 5), .notValid(staleValue: 5))
        let repository = CacheRepository(main: main, cache: cache)

        // When one reader falls back to the stale value and another does not
        async let stale = repository.get(KeyQuery("a"), operation: .cacheSync(fallback: { _ in true }))
        let strict = Task { try await repository.get(KeyQuery("a"), operation: .cacheSync) }
        await poll { repository.mainReads.waiterCount == 2 }
        gate.open()

        // Then the one main failure reached both, and each applied its own rule
        #expect(try await stale == 5)
        let error = await #expect(throws: StrataError.self) { try await strict.value }
        #expect(error?.code == .network)
        #expect(main.calls(.get) == 1)
    }

    @Test func mainSyncReadsAreNotCoalesced() async throws {
        let gate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["a": 1], gate: gate)
        let repository = CacheRepository(main: main, cache: PluginTestStore<Int>())

        async let first = repository.get(KeyQuery("a"), operation: .mainSync)
        async let second = repository.get(KeyQuery("a"), operation: .mainSync)
        await gate.waitForEntered(2)
        gate.open()

        #expect(try await [first, second] == [1, 1])
        #expect(main.calls(.get) == 2)
    }
}

/// A cache over a ``PluginTestStore`` whose first read finds its answer and is then held at ``held`` before it gives
/// it: a reader that missed, still on its way to main.
private final class MissThenHoldCache: DataSource {
    /// The entries and the call counts.
    let store = PluginTestStore<Int>()

    /// Where the first read waits.
    let held = AsyncGate(isOpen: false)

    private let reads = Locked(0)

    func get(_ query: any Query) async throws -> Int {
        let answer: Result<Int, any Error>
        do { answer = .success(try await store.get(query)) } catch { answer = .failure(error) }
        if reads.withLock({ reads in
            reads += 1
            return reads == 1
        }) {
            await held.enter()
        }
        return try answer.get()
    }

    func getAll(_ query: any Query) async throws -> [Int] { try await store.getAll(query) }

    func put(_ value: Int, in query: any Query) async throws -> Int { try await store.put(value, in: query) }

    func putAll(_ values: [Int], in query: any Query) async throws -> [Int] {
        try await store.putAll(values, in: query)
    }

    func delete(_ query: any Query) async throws { try await store.delete(query) }
}
