// CacheOperation: the cache data source only, with or without its validation.

import SampleSupport
import Strata
import StrataMemory
import StrataTesting

@main
struct CacheOperationSample {
    static func main() async {
        print("CacheOperation — the cache only (a ManualClock stands in for five minutes passing)")
        let clock = ManualClock()
        let api = MemoryDataSource<String>()
        let memory = MemoryDataSource<String>(configuration: .init(countLimit: 100, clock: clock))
        let users = CacheRepository(
            main: NarratedDataSource("main", api),
            cache: NarratedDataSource("cache", memory).validated(by: .maxAge(.seconds(300), clock: clock))
        )
        await step("PUT 1: written to the cache only") {
            print("    = \(try await users.put("Ada", in: IdQuery(1), operation: .cache))")
        }
        await step("GET 1: answered by the cache") {
            print("    = \(try await users.get(IdQuery(1), operation: .cache))")
        }
        clock.advance(by: .seconds(301))
        await step("GET 1 five minutes later: the cached value is no longer valid") {
            print("    = \(try await users.get(IdQuery(1), operation: .cache))")
        }
        await step("GET 1 with .cacheIgnoringValidation: the stale value is served") {
            print("    = \(try await users.get(IdQuery(1), operation: .cacheIgnoringValidation))")
        }
        await step("GET 2: the cache has nothing, and main is never asked") {
            print("    = \(try await users.get(IdQuery(2), operation: .cache))")
        }
    }
}
