// MainOperation: the main data source only; the cache is never touched.

import SampleSupport
import Strata
import StrataMemory

@main
struct MainOperationSample {
    static func main() async {
        print("MainOperation — the main source only")
        let api = MemoryDataSource<String>()
        for (key, name) in samplePeople { api.setValue(name, forKey: key) }
        let cache = MemoryDataSource<String>(countLimit: 100)
        let users = CacheRepository(main: NarratedDataSource("main", api), cache: NarratedDataSource("cache", cache))
        await step("GET 2: answered by main, the cache stays cold") {
            print("    = \(try await users.get(IdQuery(2), operation: .main))")
        }
        await step("PUT 5: written to main only") {
            print("    = \(try await users.put("Margaret", in: IdQuery(5), operation: .main))")
        }
        await step("DELETE 5: deleted from main only") {
            try await users.delete(IdQuery(5), operation: .main)
        }
        print("\nThe cache holds \(cache.count) entries.")
    }
}
