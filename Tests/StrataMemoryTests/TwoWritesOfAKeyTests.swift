import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// Two writes of one key through a repository at once, whose sources take them in different orders: the cache never
/// keeps a value main no longer holds. Before, nothing ordered the second steps of two writes: the one whose main
/// answer came last wrote the cache last, whatever main held, and reads served that value as fresh.
struct TwoWritesOfAKeyTests {
    /// Holds a write of the value `held` once armed, before main applies it or after (main holds it, and its answer
    /// is on its way), until ``release`` opens.
    private struct HeldWrite: StrataPlugin {
        let held: String
        let holdsTheAnswer: Bool
        let release = AsyncGate(isOpen: false)

        func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws
            -> R
        {
            let holds = !call.method.isRead && call.value as? String == held
            if holds, !holdsTheAnswer { await release.enter() }
            let result = try await next()
            if holds, holdsTheAnswer { await release.enter() }
            return result
        }
    }

    /// Main applies u1 then u2 (or a delete), and answers the second first (`.mainSync`, `.default`: main, then the
    /// cache with its answer).
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [ListAnswerCopyTests.OperationChoice.default, .mainSync],
        [false, true]
    )
    func aWriteWhoseMainAnswerComesLastDoesNotLeaveItsOlderValueInTheCache(
        _ operation: ListAnswerCopyTests.OperationChoice,
        deletes: Bool
    ) async throws {
        try await race(operation.value, heldAt: .answer, deletes: deletes)
    }

    /// Main applies u2 (or a delete) then u1, after the cache took them the other way round (`.cacheSync`: the cache,
    /// then main).
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aCacheFirstWriteMainTakesLastDoesNotLeaveTheOtherValueInTheCache(deletes: Bool) async throws {
        try await race(.cacheSync, heldAt: .request, deletes: deletes)
    }

    /// Where main holds the write of u1.
    private enum Hold { case request, answer }

    /// Writes u1 into key 7 with `operation`, held at main, then u2 (or deletes the key) meanwhile, then lets u1 go
    /// on: reads serve what main holds, and the cache holds no other value.
    private func race(_ operation: any RepositoryOperation, heldAt hold: Hold, deletes: Bool) async throws {
        // Given a write of u1, held at main
        let main = MemoryDataSource<String>()
        let plugin = HeldWrite(held: "u1", holdsTheAnswer: hold == .answer)
        let cache = MemoryDataSource<String>()
        let repository = CacheRepository(main: main.plugins([plugin]), cache: cache)
        let first = Task { try await repository.put("u1", in: IdQuery(7), operation: operation) }
        await plugin.release.waitForEntered(1)

        // When a write of u2 (or a delete) runs meanwhile, and u1's then goes on
        if deletes {
            try await repository.delete(IdQuery(7), operation: operation)
        } else {
            #expect(try await repository.put("u2", in: IdQuery(7), operation: operation) == "u2")
        }
        plugin.release.open()
        _ = try await first.value

        // Then the cache holds main's value or none, and reads serve main's
        let held = main.value(forKey: "7")
        #expect(held == (hold == .request ? "u1" : deletes ? nil : "u2"))
        #expect([nil, held].contains(cache.value(forKey: "7")))
        let read = await Result { try await repository.get(IdQuery(7), operation: .cacheSync) }
        #expect((try? read.get()) == held)
    }
}
