// DefaultOperation: GET behaves as CacheSync, PUT and DELETE as MainSync — a regular cache.

import SampleSupport
import Strata
import StrataMemory

@main
struct DefaultOperationSample {
    static func main() async {
        print("DefaultOperation — GET as .cacheSync, PUT and DELETE as .mainSync")
        let api = MemoryDataSource<String>()
        for (key, name) in samplePeople { api.setValue(name, forKey: key) }
        let users = CacheRepository(
            main: NarratedDataSource("main", api),
            cache: NarratedDataSource("cache", MemoryDataSource<String>(countLimit: 100))
        )
        await step("GET 1 (cold cache): the cache misses, main answers, the cache is filled") {
            print("    = \(try await users.get(IdQuery(1), operation: .default))")
        }
        await step("GET 1 again: answered by the cache") {
            print("    = \(try await users.get(IdQuery(1)))")
        }
        await step("PUT 4: main first, then the cache") {
            print("    = \(try await users.put("Barbara", in: IdQuery(4)))")
        }
        await step("DELETE 4: main first, then the cache") {
            try await users.delete(IdQuery(4))
        }
    }
}
