// CacheSyncOperation: the cache first; on a miss or an invalid value, main, then the cache is filled.

import SampleSupport
import Strata
import StrataMemory
import StrataTesting

@main
struct CacheSyncOperationSample {
    static func main() async {
        print("CacheSyncOperation — the cache first, main on a miss (a ManualClock stands in for time passing)")
        let clock = ManualClock()
        let api = MemoryDataSource<String>()
        for (key, name) in samplePeople { api.setValue(name, forKey: key) }
        let memory = MemoryDataSource<String>(configuration: .init(countLimit: 100, clock: clock))
        let users = CacheRepository(
            main: NarratedDataSource("main", api),
            cache: NarratedDataSource("cache", memory).validated(by: .maxAge(.seconds(60), clock: clock))
        )
        await step("GET 1 (cold cache): cache notFound, main answers, the cache is filled") {
            print("    = \(try await users.get(IdQuery(1), operation: .cacheSync))")
        }
        await step("GET 1 again: the cache answers alone") {
            print("    = \(try await users.get(IdQuery(1), operation: .cacheSync))")
        }
        clock.advance(by: .seconds(61))
        await step("GET 1 a minute later: the cached value is notValid, so main answers and the cache is refreshed") {
            print("    = \(try await users.get(IdQuery(1), operation: .cacheSync))")
        }
        await step("PUT 6: the cache first, then main") {
            print("    = \(try await users.put("Frances", in: IdQuery(6), operation: .cacheSync))")
        }
        await step("DELETE 6: the cache first, then main") {
            try await users.delete(IdQuery(6), operation: .cacheSync)
        }
    }
}
