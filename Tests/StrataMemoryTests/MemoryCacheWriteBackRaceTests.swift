import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// A listing's write-back (main's answer to "every entry" written into a memory cache) racing a `.cache` put: the
/// put's value stays, and the cache is not emptied.
struct MemoryCacheWriteBackRaceTests {
    private struct User: Sendable, Equatable {
        let id: String
        let name: String
    }

    /// Holds the first write of the source it is attached to, once armed, until ``release`` opens.
    private final class HeldWrite: StrataPlugin {
        let armed = Locked(true)
        let release = AsyncGate(isOpen: false)

        func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws
            -> R
        {
            let holds =
                !call.method.isRead
                && armed.withLock { armed in
                    defer { armed = false }
                    return armed
                }
            if holds { await release.enter() }
            return try await next()
        }
    }

    /// Before, a listing's write-back that saw a write begin during its own cache write deleted its copy of the
    /// listing — every entry of the cache: the put's value and the entries put before the read were gone.
    @Test(.timeLimit(.minutes(1)))
    func aCachePutDuringAListingsWriteBackSurvivesItAndTheCacheIsNotEmptied() async throws {
        // Given a memory cache holding a `.cache` put of user 9, and a CacheSync read of every user that got main's
        // answer and is held writing it into the cache
        let main = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        _ = try await main.putAll([User(id: "1", name: "Ann"), User(id: "2", name: "Bo")], in: AllObjectsQuery())
        let memory = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let held = HeldWrite()
        let repository = CacheRepository(main: main, cache: memory.plugins([held]))
        held.armed.withLock { $0 = false }
        _ = try await repository.put(User(id: "9", name: "Zed"), in: IdQuery("9"), operation: .cache)
        held.armed.withLock { $0 = true }
        let read = Task { try await repository.getAll(AllObjectsQuery(), operation: .cacheSync) }
        await held.release.waitForEntered(1)

        // When a `.cache` put of user 3 is made meanwhile, and the write-back then goes on
        let put = Task { try await repository.put(User(id: "3", name: "Cy"), in: IdQuery("3"), operation: .cache) }
        await repository.writeStamps.waitForTurnWaiters(1)
        held.release.open()
        #expect(try await put.value == User(id: "3", name: "Cy"))
        #expect(Set(try await read.value.map(\.id)) == ["1", "2"])

        // Then the cache holds the put's value and what it held before: nothing was emptied
        #expect(try await repository.get(IdQuery("3"), operation: .cache) == User(id: "3", name: "Cy"))
        #expect(try await repository.get(IdQuery("9"), operation: .cache) == User(id: "9", name: "Zed"))
        #expect(memory.count >= 2)
    }
}
