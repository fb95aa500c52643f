import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// The cache's list answer (every entry) around the repository's removals of single copies and its writes of some
/// values in `AllObjectsQuery`: the cache never answers "every entry" with some left out.
struct ListAnswerCopyTests {
    private struct User: Sendable, Equatable, Identifiable {
        let id: String
        var name = "main"
    }

    /// Main: users 1, 2 and 3, each answered with `metadata` (every `get` and every list); counts its list reads.
    private final class Users: GetDataSource, PutDataSource {
        private let reads = Locked(0)
        private let metadata: EntryMetadata

        init(metadata: EntryMetadata = EntryMetadata()) { self.metadata = metadata }

        var listReads: Int { reads.withLock { $0 } }

        private var users: [StoredEntry<User>] {
            ["1", "2", "3"].map { StoredEntry(value: User(id: $0), metadata: metadata) }
        }

        func get(_ query: any Query) async throws -> User { try await getEntry(query).value }

        func getEntry(_ query: any Query) async throws -> StoredEntry<User> {
            guard let keyed = query as? any KeyedQuery, let user = users.first(where: { $0.value.id == keyed.key })
            else { throw StrataError(.notFound, "no user") }
            return user
        }

        func getAll(_ query: any Query) async throws -> [User] { try await getAllEntries(query).map(\.value) }

        func getAllEntries(_ query: any Query) async throws -> [StoredEntry<User>] {
            reads.withLock { $0 += 1 }
            return users.map { StoredEntry(value: $0.value, metadata: EntryMetadata()) }
        }

        func put(_ value: User, in query: any Query) async throws -> User { value }

        func putAll(_ values: [User], in query: any Query) async throws -> [User] { values }
    }

    private static func listed(
        _ repository: CacheRepository<some GetDataSource<User>, MemoryDataSource<User>>
    ) async throws -> [String] {
        try await repository.getAll(AllObjectsQuery(), operation: .default).map(\.id).sorted()
    }

    /// Before, a `.mainSync` get main answered `no-store` dropped the cache's copy of 1, and the stored list answer
    /// then listed every user but 1, without asking main.
    @Test func aCopyDroppedForAnUnstorableAnswerTakesTheListAnswerWithIt() async throws {
        let main = Users(metadata: EntryMetadata(expiresAt: .distantPast))
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)
        #expect(try await Self.listed(repository) == ["1", "2", "3"])

        _ = try await repository.get(IdQuery("1"), operation: .mainSync)

        #expect(cache.value(forKey: "1") == nil)
        #expect(try await Self.listed(repository) == ["1", "2", "3"])
        #expect(main.listReads == 2, "the list without 1 is not the cache's answer")
    }

    /// Before, a put main may have taken (a timeout after it was sent) dropped the cache's copy of the key, and the
    /// stored list answer then listed every user but that one.
    @Test func aCopyDroppedAfterAnUncertainPutTakesTheListAnswerWithIt() async throws {
        let main = ScriptedDataSource(["1": User(id: "1"), "2": User(id: "2"), "3": User(id: "3")])
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)
        #expect(try await Self.listed(repository) == ["1", "2", "3"])
        var timedOut = StrataError(.network, "PUT timed out after the request was sent")
        timedOut.mayHaveTakenEffect = true
        main.fail(.put, with: timedOut, times: 1)

        await #expect(throws: StrataError.self) {
            _ = try await repository.put(User(id: "1", name: "new"), in: IdQuery("1"), operation: .default)
        }

        #expect(try await Self.listed(repository) == ["1", "2", "3"])
        #expect(main.callCount(.getAll) == 2)
    }

    /// Before, invalidating a tag removed its entries from the cache, and the stored list answer then listed every
    /// user but those, though main still holds them.
    @Test func anInvalidatedGroupTakesTheListAnswerWithIt() async throws {
        let main = Users()
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)
        #expect(try await Self.listed(repository) == ["1", "2", "3"])
        _ = try await cache.put(User(id: "2"), in: IdQuery("2"), tags: ["team:7"])

        try await repository.invalidate(tag: "team:7")

        #expect(try await Self.listed(repository) == ["1", "2", "3"])
        #expect(main.listReads == 2)
    }

    /// Before, a `.cacheSync` delete that main then refused left the cache's list answer without the key main still
    /// holds, served as every entry.
    @Test func aCacheFirstDeleteMainRefusedTakesTheListAnswerWithIt() async throws {
        let main = ScriptedDataSource(["1": User(id: "1"), "2": User(id: "2"), "3": User(id: "3")])
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)
        #expect(try await Self.listed(repository) == ["1", "2", "3"])
        main.fail(.delete, with: StrataError(.unauthorized, "403"), times: 1)

        await #expect(throws: StrataError.self) { try await repository.delete(IdQuery("1"), operation: .cacheSync) }

        #expect(try await Self.listed(repository) == ["1", "2", "3"])
        #expect(main.callCount(.getAll) == 2)
    }

    /// A delete main performed really removes the value: the list answer stays, without it.
    @Test func aDeleteMainPerformedKeepsTheListAnswer() async throws {
        let main = ScriptedDataSource(["1": User(id: "1"), "2": User(id: "2"), "3": User(id: "3")])
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)
        #expect(try await Self.listed(repository) == ["1", "2", "3"])

        try await repository.delete(IdQuery("1"), operation: .default)

        #expect(try await Self.listed(repository) == ["2", "3"])
        #expect(main.callCount(.getAll) == 1)
    }

    /// Before, a put of one user in `AllObjectsQuery` through main was stored in the cache as its list answer: every
    /// user was that one, and main was not asked.
    @Test(arguments: [OperationChoice.default, .mainSync, .cacheSync])
    func aPutOfSomeValuesInEveryEntryIsNoListAnswer(_ operation: OperationChoice) async throws {
        let main = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        for id in ["1", "2", "3"] { _ = try await main.put(User(id: id), in: IdQuery(id)) }
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)

        _ = try await repository.putAll([User(id: "3", name: "new")], in: AllObjectsQuery(), operation: operation.value)

        #expect(try await Self.listed(repository) == ["1", "2", "3"])
        #expect(cache.value(forKey: "3") == User(id: "3", name: "new"))
    }

    /// A write plan that writes main then the cache, or the cache then main.
    enum OperationChoice: Sendable, CaseIterable {
        case `default`, mainSync, cacheSync

        var value: any RepositoryOperation {
            switch self {
            case .default: DefaultOperation()
            case .mainSync: MainSyncOperation()
            case .cacheSync: CacheSyncOperation()
            }
        }
    }
}
