import Strata
import StrataTesting
import Testing

/// The built-in operations fit an existential's inline buffer, so a call that passes `operation: .cacheSync` to an
/// `any RepositoryOperation` parameter allocates nothing for it (a larger operation is boxed on the heap: a
/// `malloc` and a `free` on every call, a third of a memory-cache hit).
@Suite struct OperationLayoutTests {
    /// What an existential holds inline: three words, word-aligned.
    static func fitsInline<Operation: RepositoryOperation>(_: Operation.Type) -> Bool {
        MemoryLayout<Operation>.size <= 3 * MemoryLayout<Int>.size
            && MemoryLayout<Operation>.alignment <= MemoryLayout<Int>.alignment
    }

    @Test func everyBuiltInOperationFitsAnExistentialInline() {
        #expect(Self.fitsInline(DefaultOperation.self))
        #expect(Self.fitsInline(MainOperation.self))
        #expect(Self.fitsInline(MainSyncOperation.self))
        #expect(Self.fitsInline(CacheOperation.self))
        #expect(Self.fitsInline(CacheSyncOperation.self))
    }

    @Test func aCacheSyncOperationKeepsItsStaleWhileRevalidateRule() throws {
        let clock = ManualClock()
        let plain = CacheSyncOperation()
        #expect(plain.name == "cacheSync")
        #expect(plain.staleWhileRevalidate == nil)
        #expect(plain.plan.read?.refreshesInBackground == nil)

        let refreshing: any RepositoryOperation = .cacheSync(staleWhileRevalidate: .seconds(30), clock: clock)
        #expect(refreshing.name == "cacheSyncStaleWhileRevalidate")
        let rule = try #require((refreshing as? CacheSyncOperation)?.staleWhileRevalidate)
        #expect(rule.window == .seconds(30))
        #expect(rule.clock as? ManualClock === clock)
        #expect(refreshing.plan.read?.refreshesInBackground?.window == .seconds(30))
    }
}
