import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// A write-back (main's answer written into the cache by a read) racing a write through the repository: what the
/// write stored, and the caller was told is stored, stays.
struct WriteBackRaceTests {
    /// Before, a write-back that saw a `.cache` put begin during its own cache write deleted the key, and with it the
    /// put's value: the put had returned, and the value was gone.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aCachePutDuringAWriteBackSurvivesIt(isList: Bool) async throws {
        try await Self.raceAWriteBack(isList: isList, read: .mainSync, withAPut: .cache)
    }

    /// Before, a read whose cache read missed and ended after a `.cache` put took its stamp after the put had ended:
    /// main's older answer was written over the put's value.
    @Test(.timeLimit(.minutes(1)))
    func aCachePutEndingDuringASlowCacheReadIsNotOverwrittenByMainsAnswer() async throws {
        // Given a CacheSync read whose cache read missed and is held on its way back
        let cacheGate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["1": "old"])
        let cache = PluginTestStore<String>(gate: cacheGate, readsBeforeGate: true)
        let repository = CacheRepository(main: main, cache: cache)
        let read = Task { try await repository.get(IdQuery(1), operation: .cacheSync) }
        await cacheGate.waitForEntered(1)

        // When a `.cache` put of the key ends meanwhile, and the read then goes on
        _ = try await repository.put("new", in: IdQuery(1), operation: .cache)
        cacheGate.open()
        let answer = try await read.value

        // Then the cache keeps the put's value, and it is what the reads get
        #expect(answer == "new")
        #expect(cache.peek("1") == "new")
        #expect(try await repository.get(IdQuery(1), operation: .cacheSync) == "new")
    }

    /// A read of key 1 (or of keys 1 and 2) by `read`, held writing main's "old" into the cache, and a put of "new"
    /// into key 1 by `put` made meanwhile: the put returns, its value is in the cache and served, and main was asked
    /// once.
    static func raceAWriteBack(
        isList: Bool,
        read operation: any RepositoryOperation,
        withAPut put: any RepositoryOperation
    ) async throws {
        // Given a read that got main's "old" and is held writing it into the cache
        let cacheGate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["1": "old", "2": "old two"])
        let cache = PluginTestStore<String>(writeGate: cacheGate, gatedWrites: 1)
        let repository = CacheRepository(main: main, cache: cache)
        let read = Task {
            isList
                ? try await repository.getAll(IdsQuery([1, 2]), operation: operation)
                : [try await repository.get(IdQuery(1), operation: operation)]
        }
        await cacheGate.waitForEntered(1)

        // When a put of key 1 is made meanwhile (it waits for the write-back's turn), and the write-back goes on
        let write = Task { try await repository.put("new", in: IdQuery(1), operation: put) }
        await repository.writeStamps.waitForTurnWaiters(1)
        cacheGate.open()
        #expect(try await write.value == "new")
        _ = try await read.value

        // Then the put's value is in the cache and served
        #expect(cache.peek("1") == "new")
        #expect(try await repository.get(IdQuery(1), operation: .cacheSync) == "new")
        #expect(main.calls(.get) + main.calls(.getAll) == 1)
    }
}
