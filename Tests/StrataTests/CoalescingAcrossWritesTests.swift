import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// A `CoalescingPlugin` on main never lets a read that began after a write join a read from before it.
struct CoalescingAcrossWritesTests {
    @Test(arguments: [false, true])
    func aReadAfterAWriteThroughTheRepositoryDoesNotGetTheValueBeforeIt(isPut: Bool) async throws {
        // Given a read of key 1 whose main answer ("old", read as it was) is held at a gate, main behind a
        // CoalescingPlugin
        let gate = AsyncGate(isOpen: false)
        let plugin = CoalescingPlugin()
        let main = PluginTestStore(["1": "old"], gate: gate, readsBeforeGate: true)
        let cache = PluginTestStore<String>()
        let repository = CacheRepository(main: main.plugins([plugin], name: "main"), cache: cache)
        let first = Task { try await repository.get(IdQuery(1), operation: .cacheSync) }
        await gate.waitForEntered(1)

        // When key 1 is deleted (or written) through the repository, and a read begins after that returned
        if isPut {
            _ = try await repository.put("new", in: IdQuery(1), operation: .main)
        } else {
            try await repository.delete(IdQuery(1), operation: .mainSync)
        }
        let second = Task { try await repository.get(IdQuery(1), operation: .cacheSync) }
        var waited = 0
        while gate.entered < 2, plugin.waiterCount < 2, waited < 3_000 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        gate.open()

        // Then the later read gets main's answer after the write, and the cache does not keep the older one
        #expect(try await first.value == "old")
        if isPut {
            #expect(try await second.value == "new")
        } else {
            let error = await strataError { _ = try await second.value }
            #expect(error?.code == .notFound, "\(String(describing: error))")
        }
        #expect(cache.peek("1") != "old")
    }
}
