import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// A main that applies every write, then keeps the first caller waiting until its task is cancelled (a server that
/// took the write, and a view that closed before it answered).
private struct ApplyingThenWaitingMain: GetDataSource, PutDataSource, DeleteDataSource {
    let store: ObservableStore<String>
    let arrived: AsyncGate

    func get(_ query: any Query) async throws -> String { try await store.get(query) }
    func getAll(_ query: any Query) async throws -> [String] { try await store.getAll(query) }

    func put(_ value: String, in query: any Query) async throws -> String {
        _ = try await store.put(value, in: query)
        try await holdTheCaller()
        return value
    }

    func putAll(_ values: [String], in query: any Query) async throws -> [String] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func delete(_ query: any Query) async throws {
        try await store.delete(query)
        try await holdTheCaller()
    }

    private func holdTheCaller() async throws {
        await arrived.enter()
        try await waitUntilCancelled()
    }
}

/// Before, a write through the repository (`.mainSync`, the default) whose caller was cancelled after main had taken
/// it left the cache's older copy in place: reads served the value main no longer held, as fresh, and streams were
/// never told.
struct CancelledMainWriteTests {
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aWriteMainTookAsItsCallerWasCancelledLeavesNoOlderCopyServed(deletes: Bool) async throws {
        // Given v1 in main and in the cache
        let arrived = AsyncGate(isOpen: false)
        let main = ApplyingThenWaitingMain(store: ObservableStore(["1": "v1"]), arrived: arrived)
        let repository = CacheRepository(main: main, cache: ObservableStore(["1": "v1"]))
        #expect(try await repository.get(KeyQuery("1"), operation: .cacheSync) == "v1")

        // When a write of v2 (or a delete) reaches main, and its caller is cancelled before main answers
        let write = Task {
            if deletes {
                try await repository.delete(KeyQuery("1"), operation: .mainSync)
            } else {
                _ = try await repository.put("v2", in: KeyQuery("1"), operation: .mainSync)
            }
        }
        await arrived.waitForEntered(1)
        write.cancel()
        arrived.open()
        _ = try? await write.value

        // Then a read no longer serves v1 from the cache: it asks main
        let read = await Result { try await repository.get(KeyQuery("1"), operation: .cacheSync) }
        if deletes {
            #expect(read.failure?.strataCode == .notFound)
        } else {
            #expect(try read.get() == "v2")
        }
    }
}
