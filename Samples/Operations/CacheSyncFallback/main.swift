// CacheSyncOperation with a fallback rule: serve the stale cached value when main fails with an error the rule
// accepts (serve-stale-on-error).

import SampleSupport
import Strata
import StrataMemory
import StrataTesting

@main
struct CacheSyncFallbackSample {
    static func main() async {
        print("CacheSyncOperation(fallback:) — serve stale data when the API is unreachable")
        let clock = ManualClock()
        let api = ScriptedDataSource(samplePeople)  // a pretend API that the sample can take offline
        let memory = MemoryDataSource<String>(configuration: .init(countLimit: 100, clock: clock))
        let users = CacheRepository(
            main: NarratedDataSource("main", api),
            cache: NarratedDataSource("cache", memory).validated(by: .maxAge(.seconds(60), clock: clock))
        )
        let offlineFirst = CacheSyncOperation(fallback: { $0.strataCode == .network })
        await step("GET 1 while online: cached for a minute") {
            print("    = \(try await users.get(IdQuery(1), operation: offlineFirst))")
        }
        clock.advance(by: .seconds(120))
        api.script(.get, .failure(StrataError(.network, "The network connection was lost")))
        await step("GET 1 two minutes later, offline: main fails with a network error, the stale value is served") {
            print("    = \(try await users.get(IdQuery(1), operation: offlineFirst))")
        }
        api.script(.get, .failure(StrataError(.unauthorized, "The session expired")))
        await step("GET 1 with an expired session: the rule refuses `unauthorized`, so the error is thrown") {
            print("    = \(try await users.get(IdQuery(1), operation: offlineFirst))")
        }
        await step("GET 1 back online: main answers and the cache is refreshed") {
            print("    = \(try await users.get(IdQuery(1), operation: offlineFirst))")
        }
    }
}
