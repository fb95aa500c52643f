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
        _ = await poll(within: .seconds(30), until: { gate.entered >= 2 || plugin.waiterCount >= 2 })
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

/// Which reads a `CoalescingPlugin` shares: those of one source, and only as far as writes of their keys allow.
struct CoalescingPluginScopeTests {
    /// Before, reads were keyed by the source's name, which is its type's by default: one plugin shared by two sources
    /// of one type (thumbnails and originals) handed the second caller the first source's value.
    @Test(.timeLimit(.minutes(2)))
    func oneSharedPluginNeverHandsOneSourcesValueToAnother() async throws {
        // Given one plugin on two sources of one type and name, each holding its own value under key 1
        let plugin = CoalescingPlugin()
        let gates = (AsyncGate(isOpen: false), AsyncGate(isOpen: false))
        let thumbnails = PluginTestStore(["1": "thumbnail"], gate: gates.0).plugins([plugin])
        let originals = PluginTestStore(["1": "original"], gate: gates.1).plugins([plugin])
        #expect(thumbnails.name == originals.name)
        // When both are read at once
        let first = Task { try await thumbnails.get(IdQuery(1)) }
        await gates.0.waitForEntered(1)
        let second = Task { try await originals.get(IdQuery(1)) }
        await poll { gates.1.entered == 1 || plugin.waiterCount == 2 }
        gates.0.open()
        gates.1.open()
        // Then each gets its own source's value
        #expect(try await first.value == "thumbnail")
        #expect(try await second.value == "original")
    }

    /// Before, any write through the plugin split every read: under a steady flow of writes of other keys, the reads
    /// of one hot key each went to the source.
    @Test(.timeLimit(.minutes(2)))
    func aWriteOfAnotherKeyDoesNotSplitTheReadsOfAKey() async throws {
        // Given a read of key 1 in flight through the plugin
        let plugin = CoalescingPlugin()
        let gate = AsyncGate(isOpen: false)
        let store = PluginTestStore(["1": "hot"], gate: gate)
        let source = store.plugins([plugin])
        let first = Task { try await source.get(IdQuery(1)) }
        await gate.waitForEntered(1)
        // When another key is written, one that does not share key 1's stripe (keys fall in stripes by their hash,
        // seeded per process: "2" shares one with "1" in 1 run of 256), and key 1 read again
        let stripe = { (id: Int) in String(id).stripe(among: CacheWriteStamps.stripeCount) }
        let other = (2...).first { stripe($0) != stripe(1) } ?? 2
        _ = try await source.put("other", in: IdQuery(other))
        let second = Task { try await source.get(IdQuery(1)) }
        await poll { gate.entered == 2 || plugin.waiterCount == 2 }
        gate.open()
        // Then the second read shared the first: one read of the source
        #expect(try await first.value == "hot")
        #expect(try await second.value == "hot")
        #expect(store.calls(.get) == 1)
    }
}
