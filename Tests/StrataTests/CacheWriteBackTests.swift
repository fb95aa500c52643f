import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// The write-back rule: main's answer to a read is written into the cache only when no write of its keys went
/// through the repository since the read began, so an older answer never replaces a newer cached value.
struct CacheWriteBackTests {
    /// Main holding "old" for key 1 with its reads held at a gate, over an empty cache.
    private struct Fixture {
        let gate = AsyncGate(isOpen: false)
        let main: PluginTestStore<String>
        let cache = PluginTestStore<String>()
        let repository: CacheRepository<PluginTestStore<String>, PluginTestStore<String>>

        init(coalesces: Bool = true) {
            main = PluginTestStore(["1": "old", "2": "old two"], gate: gate)
            repository = CacheRepository(
                main: main,
                cache: cache,
                configuration: .init(coalescesMainReads: coalesces)
            )
        }
    }

    @Test(arguments: [true, false])
    func aReadThatBeganBeforeACacheWriteDoesNotWriteMainsAnswerOverIt(coalesces: Bool) async throws {
        // Given a CacheSync read that missed the cache and waits for main
        let fixture = Fixture(coalesces: coalesces)
        let repository = fixture.repository
        let read = Task { try await repository.get(IdQuery(1), operation: .cacheSync) }
        await fixture.gate.waitForEntered(1)

        // When the cache is written meanwhile, and then main answers
        _ = try await repository.put("new", in: IdQuery(1), operation: .cache)
        fixture.gate.open()

        // Then the read returns main's answer, and the cache keeps the newer value
        #expect(try await read.value == "old")
        #expect(fixture.cache.peek("1") == "new")
        #expect(try await repository.get(IdQuery(1), operation: .cacheSync) == "new")
        #expect(fixture.main.calls(.get) == 1)
    }

    @Test func aDeleteMeanwhileIsNotUndoneByMainsAnswer() async throws {
        let fixture = Fixture()
        let repository = fixture.repository
        _ = try await repository.put("cached", in: IdQuery(1), operation: .cache)
        let read = Task { try await repository.get(IdQuery(1), operation: .mainSync) }
        await fixture.gate.waitForEntered(1)

        try await repository.delete(IdQuery(1), operation: .cache)
        fixture.gate.open()

        #expect(try await read.value == "old")
        #expect(fixture.cache.peek("1") == nil)
    }

    @Test func aListReadOfMissingKeysSkipsTheWriteBackOfAKeyWrittenMeanwhile() async throws {
        let fixture = Fixture()
        let repository = fixture.repository
        let read = Task { try await repository.getAll(IdsQuery([1, 2]), operation: .cacheSync) }
        await fixture.gate.waitForEntered(1)

        _ = try await repository.put("new", in: IdQuery(1), operation: .cache)
        fixture.gate.open()

        // The list's write-back is one cache write: a key of it written meanwhile skips all of it
        #expect(try await read.value == ["old", "old two"])
        #expect(fixture.cache.peek("1") == "new")
        #expect(fixture.cache.peek("2") == nil)
    }

    @Test func aWriteOfAnotherKeyMeanwhileLeavesTheWriteBack() async throws {
        // A key that shares key 1's stripe would only skip the write-back, so one in another stripe is chosen.
        let fixture = Fixture()
        let repository = fixture.repository
        let read = Task { try await repository.get(IdQuery(1), operation: .cacheSync) }
        await fixture.gate.waitForEntered(1)

        _ = try await repository.put("other", in: IdQuery(otherStripeKey(than: "1")), operation: .cache)
        fixture.gate.open()

        #expect(try await read.value == "old")
        #expect(fixture.cache.peek("1") == "old")
    }

    @Test func aReadThatBeganAfterTheWriteWritesBack() async throws {
        // The rule skips only reads that began before a write: a read after it stores main's answer as always.
        let fixture = Fixture()
        let repository = fixture.repository
        fixture.gate.open()
        _ = try await repository.put("new", in: IdQuery(1), operation: .cache)

        #expect(try await repository.get(IdQuery(1), operation: .mainSync) == "old")
        #expect(fixture.cache.peek("1") == "old")
    }

    /// Before, only a cache write moved the stamps: a `.main` write left a read that began before it free to store
    /// main's older answer, which `.cacheSync` reads then served in place of main's newer value.
    @Test func aMainOnlyWriteMeanwhileSkipsTheWriteBack() async throws {
        // Given a CacheSync read whose main answer ("old") is on its way
        let gate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["1": "old"], gate: gate, readsBeforeGate: true)
        let cache = PluginTestStore<String>()
        let repository = CacheRepository(main: main, cache: cache)
        let read = Task { try await repository.get(IdQuery(1), operation: .cacheSync) }
        await gate.waitForEntered(1)

        // When main alone is written meanwhile, then the answer arrives
        _ = try await repository.put("new", in: IdQuery(1), operation: .main)
        gate.open()

        // Then the old answer is returned but not stored, and the next read asks main
        #expect(try await read.value == "old")
        #expect(cache.peek("1") == nil)
        #expect(try await repository.get(IdQuery(1), operation: .cacheSync) == "new")
    }

    /// Before, a read that began while a CacheSync delete waited for main (the cache already deleted) stored main's
    /// answer, the value being deleted, and the cache served it after the delete returned.
    @Test func aReadDuringAWriteInProgressDoesNotWriteBack() async throws {
        // Given a CacheSync delete that removed the cached entry and waits for main
        let writeGate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["1": "old"], writeGate: writeGate)
        let cache = PluginTestStore<String>()
        let repository = CacheRepository(main: main, cache: cache)
        _ = try await repository.put("old", in: IdQuery(1), operation: .cache)
        let delete = Task { try await repository.delete(IdQuery(1), operation: .cacheSync) }
        await writeGate.waitForEntered(1)
        #expect(cache.peek("1") == nil)

        // When a CacheSync read misses the cache and main answers with the value being deleted
        #expect(try await repository.get(IdQuery(1), operation: .cacheSync) == "old")
        writeGate.open()
        try await delete.value

        // Then the cache stays without it, and the next read hears main's answer
        #expect(cache.peek("1") == nil)
        await #expect(throws: StrataError.self) { try await repository.get(IdQuery(1), operation: .cacheSync) }
    }

    /// Before, a read that began after a delete had returned joined a shared main read that began before it, and
    /// was handed the deleted value.
    @Test(.timeLimit(.minutes(1))) func aReadAfterAWriteNeverJoinsAMainReadThatBeganBeforeIt() async throws {
        // Given a CacheSync read whose main answer ("old") is on its way
        let gate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["1": "old"], gate: gate, readsBeforeGate: true)
        let repository = CacheRepository(main: main, cache: PluginTestStore<String>())
        let first = Task { try await repository.get(IdQuery(1), operation: .cacheSync) }
        await gate.waitForEntered(1)

        // When the key is deleted, and another read of it starts
        try await repository.delete(IdQuery(1), operation: .mainSync)
        let second = Task { try await repository.get(IdQuery(1), operation: .cacheSync) }
        await gate.waitForEntered(2)
        gate.open()

        // Then the first read returns the old answer, and the second its own: the key is gone
        #expect(try await first.value == "old")
        let error = await #expect(throws: StrataError.self) { try await second.value }
        #expect(error?.code == .notFound)
        #expect(main.calls(.get) == 2)
    }

    /// A key whose stripe in the write stamps is not the stripe of `key`.
    private func otherStripeKey(than key: String) -> Int {
        let stripe = { (key: String) in "\(CacheWriteStamps.scope(of: KeyQuery(key)))" }
        return (2...).first { stripe(String($0)) != stripe(key) } ?? 2
    }

    /// A write that begins after the read's write-back was allowed waits for the write-back's cache write and lands
    /// after it: the read's older answer never replaces it, and nothing is dropped.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aWriteThatBeginsAfterTheWriteBackWasAllowedIsNotUndone(isList: Bool) async throws {
        try await WriteBackRaceTests.raceAWriteBack(isList: isList, read: .cacheSync, withAPut: .mainSync)
    }
}
