import Foundation
import SampleSupport
import Strata
import StrataMemory

extension StrataTour {
    /// Part 1: the five operations of a CacheRepository, printing which source answered each call.
    static func operations() async {
        print("\n━━ 1. Operations — a CacheRepository over a main source (a pretend API) and a memory cache")
        let api = MemoryDataSource<String>()
        let memory = MemoryDataSource<String>(countLimit: 100)
        for (id, name) in [(1, "Ada"), (2, "Grace"), (3, "Edsger")] { api.setValue(name, forKey: "\(id)") }

        let users = CacheRepository(
            main: NarratedDataSource("main", api),
            cache: NarratedDataSource("cache", memory)
        )

        await step("GET id 1, .cacheSync on a cold cache: cache misses, main answers, cache is filled") {
            print("    = \(try await users.get(IdQuery(1), operation: .cacheSync))")
        }
        await step("GET id 1, .cacheSync again: the cache answers alone") {
            print("    = \(try await users.get(IdQuery(1), operation: .cacheSync))")
        }
        await step("GET id 2, .cache: cache only, and it has nothing") {
            print("    = \(try await users.get(IdQuery(2), operation: .cache))")
        }
        await step("GET id 2, .main: main only, the cache stays cold") {
            print("    = \(try await users.get(IdQuery(2), operation: .main))")
        }
        await step("GET id 2, .mainSync: main first, then the value is put into the cache (a pull-to-refresh)") {
            print("    = \(try await users.get(IdQuery(2), operation: .mainSync))")
        }
        await step("PUT id 3, .default (= .mainSync): main first, then the cache") {
            print("    = \(try await users.put("Edsger W. Dijkstra", in: IdQuery(3)))")
        }
        await step("PUT id 4, .cacheSync: cache first, then main") {
            print("    = \(try await users.put("Barbara", in: IdQuery(4), operation: .cacheSync))")
        }
        await step("DELETE id 4, .default (= .mainSync): main first, then the cache") {
            try await users.delete(IdQuery(4))
        }
        await step("GET with an operation the repository does not know: a thrown error, never a crash") {
            struct Teleport: RepositoryOperation {}
            _ = try await users.get(IdQuery(1), operation: Teleport())
        }
        print("\nDone: main holds \(api.sortedKeys()), the cache holds \(memory.sortedKeys()).")
    }
}
