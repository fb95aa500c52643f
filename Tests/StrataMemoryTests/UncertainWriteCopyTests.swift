import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// A `.mainSync` write main may have taken although it failed (``StrataError/mayHaveTakenEffect``): what the cache
/// holds of it goes, whatever the query, and the word survives a retry that ends otherwise.
struct UncertainWriteCopyTests {
    /// A failure that says main may have the write: a timeout after the request left.
    private static var timedOut: StrataError {
        var error = StrataError(.network, "PUT timed out after the request was sent")
        error.mayHaveTakenEffect = true
        return error
    }

    /// Before, the retry plugin's last attempt spoke alone: a write that timed out, then met a conflict with the version
    /// it had itself written, said nothing of the first attempt, and the cache served the older value as fresh.
    @Test func aRetryThatEndsInAConflictStillSaysTheFirstAttemptMayHaveLanded() async throws {
        // Given a main whose first put times out after it left and whose second meets a conflict, behind a retry plugin
        let main = ScriptedDataSource<String>()
        main.script(.put, .failure(Self.timedOut), .failure(StrataError(.conflict, "412: the version changed")))
        let retrying = main.plugins([
            RetryPlugin(configuration: .init(maxAttempts: 2, backoff: .init(initial: .zero, jitter: .none)))
        ])
        let cache = MemoryDataSource<String>()
        cache.setValue("old", forKey: "k")
        let repository = CacheRepository(main: retrying, cache: cache)

        // When the write fails with the conflict
        let error = await strataError { _ = try await repository.put("new", in: KeyQuery("k"), operation: .mainSync) }

        // Then the error still says main may have it, and the cache's older copy is gone
        #expect(error?.code == .conflict)
        #expect(error?.mayHaveTakenEffect == true)
        #expect(main.callCount(.put) == 2)
        #expect(cache.value(forKey: "k") == nil)
    }

    /// Before, only the copies of keys a query names went: a delete of a tag that timed out left every tagged entry
    /// served as fresh.
    @Test func aDeleteOfATagThatMayHaveLandedRemovesTheTaggedCopies() async throws {
        let main = ScriptedDataSource<String>()
        main.fail(.delete, with: Self.timedOut)
        let cache = MemoryDataSource<String>()
        _ = try await cache.put("ann", in: IdQuery(1), tags: ["team:7"])
        _ = try await cache.put("cid", in: IdQuery(3), tags: ["team:8"])
        let repository = CacheRepository(main: main, cache: cache)

        await #expect(throws: StrataError.self) {
            try await repository.delete(TagQuery("team:7"), operation: .mainSync)
        }

        #expect(cache.sortedKeys() == ["3"])
    }

    /// Before, a whole list written to main that timed out left the cache's list answer, which a `.cacheSync` listing
    /// then served in place of main's new one.
    @Test func aWholeListThatMayHaveLandedForgetsTheStoredListAnswer() async throws {
        let main = ScriptedDataSource<String>(["a": "a"])
        let cache = MemoryDataSource<String>(configuration: .init(key: { $0 }))
        let repository = CacheRepository(main: main, cache: cache)
        _ = try await repository.putAll(["a", "b"], in: AllObjectsQuery(), operation: .cache)
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync) == ["a", "b"])
        main.fail(.putAll, with: Self.timedOut)

        await #expect(throws: StrataError.self) {
            _ = try await repository.putAll(["c"], in: AllObjectsQuery(), operation: .mainSync)
        }

        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync) == ["a"])
        #expect(cache.count == 2, "the entries stay; only the list answer goes")
    }

    /// Before, a `.cacheSync` write whose main write then failed threw main's error as it was, which said the write
    /// took no effect, though the cache (and so the repository's reads) held the new value.
    @Test func aCacheFirstWriteMainFailsSaysItMayHaveTakenEffect() async throws {
        let main = ScriptedDataSource<String>()
        main.fail(.put, with: StrataError(.network, "offline"))
        let cache = MemoryDataSource<String>()
        let repository = CacheRepository(main: main, cache: cache)

        let error = await strataError { _ = try await repository.put("new", in: KeyQuery("k"), operation: .cacheSync) }

        #expect(error?.code == .network)
        #expect(error?.mayHaveTakenEffect == true)
        #expect(cache.value(forKey: "k") == "new")
    }

    /// A cache write that fails after main took the write says so, for a repository above whose main this one is.
    @Test func aFailedCacheWriteAfterMainTookItSaysMainHasIt() async throws {
        let main = ScriptedDataSource<String>()
        let cache = ScriptedDataSource<String>()
        cache.fail(.put, with: StrataError(.io, "disk full"))
        cache.fail(.delete, with: StrataError(.io, "disk full"))
        let repository = CacheRepository(main: main, cache: cache)

        let error = await strataError { _ = try await repository.put("v", in: KeyQuery("k"), operation: .mainSync) }

        #expect(error?.code == .cacheSyncFailed)
        #expect(error?.mayHaveTakenEffect == true)
    }
}
