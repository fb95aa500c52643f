import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// Main's answer to a `putAll` of ids, written into the cache after main's write (`.mainSync`, `.default`): each
/// value under the key it belongs to, as reads match main's answer, never under another's.
struct PutAllMatchingTests {
    private struct User: Sendable, Equatable, Identifiable {
        let id: String
        var name = "new"
    }

    private static func repository() -> (
        repository: CacheRepository<ScriptedDataSource<User>, MemoryDataSource<User>>,
        main: ScriptedDataSource<User>,
        cache: MemoryDataSource<User>
    ) {
        let main = ScriptedDataSource<User>()
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        cache.setValue(User(id: "1", name: "old"), forKey: "1")
        cache.setValue(User(id: "2", name: "old"), forKey: "2")
        return (CacheRepository(main: main, cache: cache), main, cache)
    }

    /// Before, a server that answered the values sorted had user 1 stored under "2" and user 2 under "1".
    @Test func mainsAnswerInAnotherOrderIsStoredUnderEachValuesOwnKey() async throws {
        let (repository, main, cache) = Self.repository()
        main.script(.putAll, .values([User(id: "1"), User(id: "2")]))

        _ = try await repository.putAll(
            [User(id: "2"), User(id: "1")],
            in: IdsQuery(["2", "1"]),
            operation: .mainSync
        )

        #expect(cache.value(forKey: "1") == User(id: "1"))
        #expect(cache.value(forKey: "2") == User(id: "2"))
    }

    /// Before, the entries' metadata went by position too: the tags of user 2 landed on user 1.
    @Test func anEntrysMetadataStaysWithItsKey() async throws {
        let (repository, main, cache) = Self.repository()
        main.script(.putAll, .values([User(id: "1"), User(id: "2")]))
        let entries = [
            StoredEntry(value: User(id: "2"), metadata: EntryMetadata(tags: ["two"])),
            StoredEntry(value: User(id: "1"), metadata: EntryMetadata(tags: ["one"])),
        ]

        _ = try await repository.putAllEntries(entries, in: IdsQuery(["2", "1"]), operation: .default)

        #expect(cache.value(forKey: "2") == User(id: "2"))
        #expect(cache.keys(taggedWith: "two") == ["2"])
        #expect(cache.keys(taggedWith: "one") == ["1"])
    }

    /// Before, an answer that left a key out (one value twice in place of another) was stored by position, or the
    /// whole write failed; now the key main did not answer has its older copy dropped, and the others are stored.
    @Test func aKeyMainsAnswerLeavesOutHasItsCopyDropped() async throws {
        let (repository, main, cache) = Self.repository()
        main.script(.putAll, .values([User(id: "1"), User(id: "1")]))

        _ = try await repository.putAll(
            [User(id: "1"), User(id: "2")],
            in: IdsQuery(["1", "2"]),
            operation: .mainSync
        )

        #expect(cache.value(forKey: "1") == User(id: "1"))
        #expect(cache.value(forKey: "2") == nil)
    }

    /// A main that stores by position (a key-value store) and a cache over a main store of the same kind.
    private static func positionalRepository() -> (
        repository: CacheRepository<MemoryDataSource<User>, MemoryDataSource<User>>,
        main: MemoryDataSource<User>,
        cache: MemoryDataSource<User>
    ) {
        let main = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        return (CacheRepository(main: main, cache: cache), main, cache)
    }

    /// Values whose ids are not the keys in order are the caller's positional keying: main (a key-value store) stores
    /// each under the key at its position, and so does the cache. Before, the cache stored each under its own id, and
    /// differed from main.
    @Test func valuesKeyedByPositionAreCachedAsMainStoredThem() async throws {
        let (repository, main, cache) = Self.positionalRepository()
        let first = User(id: "1", name: "first")
        let second = User(id: "2", name: "second")

        _ = try await repository.putAll([second, first], in: IdsQuery(["1", "2"]), operation: .mainSync)

        #expect(main.value(forKey: "1") == second)
        #expect(cache.value(forKey: "1") == main.value(forKey: "1"))
        #expect(cache.value(forKey: "2") == main.value(forKey: "2"))
    }

    /// One value under two keys (an alias) is cached under both, as main stored it. Before, the alias was taken for a
    /// key main's answer left out, and its copy dropped.
    @Test func aValueUnderAnAliasIsCachedUnderBothKeys() async throws {
        let (repository, main, cache) = Self.positionalRepository()
        let user = User(id: "7")

        _ = try await repository.putAll([user, user], in: IdsQuery(["7", "me"]), operation: .mainSync)

        #expect(main.value(forKey: "me") == user)
        #expect(cache.value(forKey: "7") == user)
        #expect(cache.value(forKey: "me") == user)
    }

    /// A key main's answer leaves out whose older copy the cache cannot remove fails the write with
    /// `cacheSyncFailed`, as any cache write after main's the cache could not undo. Before, the failed delete was
    /// ignored: the write succeeded and reads served the older copy.
    @Test func aLeftOutKeyWhoseCopyCannotBeRemovedFailsTheWrite() async throws {
        let main = ScriptedDataSource<User>()
        main.script(.putAll, .values([User(id: "1"), User(id: "1")]))
        let cache = ScriptedDataSource<User>(["2": User(id: "2", name: "old")])
        cache.fail(.delete, with: StrataError(.io, "the disk refused the removal"))
        let repository = CacheRepository(main: main, cache: cache)

        let error = await #expect(throws: StrataError.self) {
            _ = try await repository.putAll(
                [User(id: "1"), User(id: "2")],
                in: IdsQuery(["1", "2"]),
                operation: .mainSync
            )
        }

        #expect(error?.code == .cacheSyncFailed)
        #expect(error?.mayHaveTakenEffect == true)
    }
}
