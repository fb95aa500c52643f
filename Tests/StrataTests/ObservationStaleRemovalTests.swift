import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// A removal that reaches a stream after the value it shows was read or written: the stream shows the value.
struct ObservationStaleRemovalTests {
    /// A value that is not `Equatable`: a stream emits every read of it, a repeat of the value before it included.
    struct Note: Sendable, CustomStringConvertible {
        let text: String
        var description: String { text }

        init(_ text: String) {
            self.text = text
        }
    }

    /// Before, a `.cache` delete between the stream's registration and its first read waited in the stream's buffer:
    /// the read missed, took main's value and wrote it back, and the stream then said "deleted" while both held it.
    @Test(.timeLimit(.minutes(1))) func aCacheDeleteBeforeTheFirstReadEndedIsNoDeletion() async throws {
        // Given a stream whose first read is held at the cache, registered already
        let cache = ObservableStore(["1": "old"])
        let reads = AsyncGate(isOpen: false)
        cache.holdGets(at: reads)
        let repository = CacheRepository(main: ScriptedDataSource(["1": "main"]), cache: cache)
        let observation = Observation(repository.stream(KeyQuery("1"), bufferingNewest: 64))
        defer { observation.task.cancel() }
        await reads.waitForEntered(1)
        // When the cache's copy is deleted before the read asks it
        try await cache.delete(KeyQuery("1"))
        reads.open()
        // Then the read takes main's value and writes it back, and the delete before it makes the stream read the
        // copy again rather than say "deleted"
        let trace = try await observation.wait(forCount: 3)
        #expect(trace == ["loading(file)", "value(main, main)", "value(main, file)"])
        #expect(cache.contents["1"] == "main")
    }

    /// Before, each source's changes reached the stream on a task of its own: a delete main announced before a later
    /// write of the cache could arrive after it, and the stream said "deleted" while the cache it reads first held the
    /// value.
    @Test(.timeLimit(.minutes(1))) func aMainDeleteArrivingAfterALaterCacheWriteIsNoDeletion() async throws {
        // Given a stream of a repository whose main announces its changes, showing the cached value
        let mainStore = ObservableStore(["1": Note("main")], origin: .network)
        let main = HeldRemovals(mainStore)
        defer { main.release() }
        let cache = ObservableStore(["1": Note("cached")])
        let repository = CacheRepository(main: main, cache: cache)
        let observation = Observation(repository.stream(KeyQuery("1"), bufferingNewest: 64))
        defer { observation.task.cancel() }
        #expect(try await observation.wait(forCount: 2) == ["loading(file)", "value(cached, file)"])
        // When main deletes the key, its announcement on its way, and the cache is written after it
        try await mainStore.delete(KeyQuery("1"))
        await main.waitForHeldRemoval()
        _ = try await cache.put(Note("newer"), in: KeyQuery("1"))
        #expect(try await observation.wait(forCount: 3).last == "value(newer, file)")
        // And main's announcement arrives last
        main.release()
        // Then the stream shows what the cache holds, which a read now answers, not "deleted"
        let trace = try await observation.wait(forCount: 4)
        #expect(trace.last == "value(newer, file)")
    }

    /// A delete of every source still reads as one: the stream says "deleted" once, from the source it reads first,
    /// without asking main.
    @Test(.timeLimit(.minutes(1))) func aDeleteThroughTheRepositoryIsReportedOnceWithoutAskingMain() async throws {
        let main = ScriptedDataSource(["1": "main"])
        let cache = ObservableStore(["1": "cached"])
        let repository = CacheRepository(main: main, cache: cache)
        let observation = Observation(repository.stream(KeyQuery("1"), bufferingNewest: 64))
        defer { observation.task.cancel() }
        try await observation.wait(forCount: 2)
        try await repository.delete(KeyQuery("1"))
        try await observation.wait { $0.error != nil }
        _ = try await repository.put("back", in: KeyQuery("1"), operation: .cache)
        let trace = try await observation.wait { $0.value == "back" }
        #expect(trace == ["loading(file)", "value(cached, file)", "error(notFound, file)", "value(back, file)"])
        #expect(main.callCount(.get) == 0)
    }
}
