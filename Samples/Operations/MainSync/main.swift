// MainSyncOperation: main first; on success the cache is brought in line — a pull-to-refresh.

import SampleSupport
import Strata
import StrataMemory

@main
struct MainSyncOperationSample {
    static func main() async {
        print("MainSyncOperation — main first, then the cache is kept in sync")
        let api = MemoryDataSource<String>()
        for (key, name) in samplePeople { api.setValue(name, forKey: key) }
        let cache = MemoryDataSource<String>(countLimit: 100)
        cache.setValue("Grace (an old copy)", forKey: "2")
        let users = CacheRepository(main: NarratedDataSource("main", api), cache: NarratedDataSource("cache", cache))
        await step("GET 2 (pull to refresh): main answers, its value replaces the old cached copy") {
            print("    = \(try await users.get(IdQuery(2), operation: .mainSync))")
        }
        await step("PUT 3: main first, then the cache with main's returned value") {
            print("    = \(try await users.put("Edsger W. Dijkstra", in: IdQuery(3), operation: .mainSync))")
        }
        await step("DELETE 3: main first, then the cache") {
            try await users.delete(IdQuery(3), operation: .mainSync)
        }
        print("\nThe cache now holds: \(cache.sortedKeys().map { "\($0)=\(cache.value(forKey: $0) ?? "")" })")
    }
}
