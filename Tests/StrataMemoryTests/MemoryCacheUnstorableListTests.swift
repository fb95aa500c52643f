import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// A list answer of main with entries that must not be stored (`no-store`, or in a shared cache one user's answer),
/// read through a `CacheRepository` over a memory store: what may be stored is, the older copies of what may not go,
/// and nothing else in the cache is touched.
struct MemoryCacheUnstorableListTests {
    private struct User: Sendable, Equatable {
        let id: String
        let name: String
    }

    /// Main: users `1` (storable) and `2` (not storable), for every listing and for lists of keys; counts its list
    /// reads. It takes no writes (the tests write the cache only).
    private final class Users: GetDataSource, PutDataSource {
        private let reads = Locked(0)
        private let users = [
            StoredEntry(value: User(id: "1", name: "main"), metadata: EntryMetadata()),
            StoredEntry(value: User(id: "2", name: "main"), metadata: EntryMetadata(expiresAt: .distantPast)),
        ]

        var listReads: Int { reads.withLock { $0 } }

        func get(_ query: any Query) async throws -> User { throw StrataError.queryNotSupported(query, by: Self.self) }

        func getAll(_ query: any Query) async throws -> [User] { try await getAllEntries(query).map(\.value) }

        func put(_ value: User, in query: any Query) async throws -> User {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }

        func putAll(_ values: [User], in query: any Query) async throws -> [User] {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }

        func getAllEntries(_ query: any Query) async throws -> [StoredEntry<User>] {
            reads.withLock { $0 += 1 }
            guard let keyed = query as? any MultiKeyedQuery else { return users }
            return keyed.keys.compactMap { key in users.first { $0.value.id == key } }
        }
    }

    /// Before, the listing's older copy was removed as for `get`: `delete(AllObjectsQuery())` emptied the cache, and
    /// the user's own `.cache` put was lost.
    @Test func aListingWithAnUnstorableEntryStoresNothingAndRemovesNothing() async throws {
        // Given a cache holding an acknowledged `.cache` put of another user
        let main = Users()
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)
        let mine = User(id: "9", name: "mine")
        _ = try await repository.put(mine, in: IdQuery("9"), operation: .cache)

        // When every user is listed, and main's answer holds one that must not be stored
        let listed = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
        let again = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)

        // Then main's answer is returned, none of it is stored, and the put is still there
        #expect(listed.map(\.id) == ["1", "2"] && again == listed)
        #expect(main.listReads == 2, "no list answer was stored")
        #expect(try await repository.get(IdQuery("9"), operation: .cache) == mine)
        #expect(cache.count == 1)
    }

    /// Before, one unstorable entry kept every other entry of the list out of the cache, and removed their copies.
    @Test func aListOfKeysStoresItsStorableEntriesAndDropsTheCopiesOfTheOthers() async throws {
        // Given a cache holding older copies of both users
        let main = Users()
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)
        _ = try await repository.putAll(
            [User(id: "1", name: "old"), User(id: "2", name: "old")],
            in: IdsQuery(["1", "2"]),
            operation: .cache
        )

        // When both are read from main, whose answer for `2` must not be stored
        let read = try await repository.getAll(IdsQuery(["1", "2"]), operation: .mainSync)

        // Then `1` is main's in the cache, and `2`'s older copy is gone
        #expect(read.map(\.name) == ["main", "main"])
        #expect(try await repository.get(IdQuery("1"), operation: .cache) == User(id: "1", name: "main"))
        await #expect(throws: StrataError.self) { try await repository.get(IdQuery("2"), operation: .cache) }
    }
}

extension MemoryCacheUnstorableListTests {
    /// Before, the cache's list answer stored from an earlier answer of main stayed, and the next `.cacheSync` listing
    /// served the older list (users main no longer has, older values) in place of main's newer answer.
    @Test func aListingWithAnUnstorableEntryForgetsTheOlderListAnswer() async throws {
        // Given a cache holding a list answer: main's listing of an earlier day, stored
        let main = Users()
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)
        let earlier = [User(id: "1", name: "old"), User(id: "3", name: "old")]
        _ = try await repository.putAll(earlier, in: AllObjectsQuery(), operation: .cache)
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync) == earlier)
        #expect(main.listReads == 0)

        // When every user is listed from main, whose answer holds one that must not be stored
        let listed = try await repository.getAll(AllObjectsQuery(), operation: .mainSync)

        // Then the older list answer is no longer served: the next listing asks main; the entries stay
        #expect(listed.map(\.id) == ["1", "2"])
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync).map(\.id) == ["1", "2"])
        #expect(main.listReads == 2)
        #expect(cache.count == 2)
    }

    /// The same through a tier (a repository as the cache of the one above): the tier's list answer, kept by its own
    /// cache, goes, and the tier's main is not asked to delete anything.
    @Test func aTiersListAnswerIsForgottenInItsCacheAlone() async throws {
        // Given an outer repository whose cache is a tier: a memory cache over a memory main, holding a list answer
        let main = Users()
        let tierMain = SpyDataSource(
            name: "tier main",
            wrapping: MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        )
        let tierCache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let tier = CacheRepository(main: tierMain, cache: tierCache).asDataSource(operation: .cacheSync)
        let repository = CacheRepository(main: main, cache: tier)
        let earlier = [User(id: "1", name: "old"), User(id: "3", name: "old")]
        _ = try await tierCache.putAll(earlier, in: AllObjectsQuery())
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync) == earlier)

        // When main's listing holds an entry that must not be stored
        _ = try await repository.getAll(AllObjectsQuery(), operation: .mainSync)

        // Then the tier's cache no longer answers the listing, and the tier's main saw no delete
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync).map(\.id) == ["1", "2"])
        #expect(tierMain.calls.filter { $0.method == .delete }.isEmpty)
        #expect(tierCache.count == 2)
    }
}
