import Strata
import StrataTesting

/// The calls every observability integration is tested with: a `users` repository over a `memory` cache and an
/// `api` main source, each with the plugin under test, read so that every repository outcome happens once.
///
/// | step | key | what happens | repository outcome, origin |
/// |---|---|---|---|
/// | 1 | `a` | the cache misses, main answers, its value is cached | `miss`, `api` |
/// | 2 | `a` | the cache answers | `hit`, `memory` |
/// | 3 | `missing` | the cache and main miss | `miss` (`notFound`), none |
/// | 4 | `stale` | the cache's value is not valid, main fails, the stale value is served | `staleServed`, `memory` |
/// | 5 | `broken` | the cache misses, main fails with a network error | `error` (`network`), none |
package struct ObservedScenario: Sendable {
    /// The repository's outcomes, in step order.
    package static let outcomes = ["miss", "hit", "miss", "staleServed", "error"]

    /// The repository's origins, in step order (`nil` where no source gave a value).
    package static let origins: [String?] = ["api", "memory", nil, "memory", nil]

    /// The main source.
    package let main = ScriptedDataSource<String>(["a": "A"])

    /// The cache.
    package let cache = ScriptedDataSource<String>()

    /// Creates the sources.
    package init() {}

    /// Runs the five steps through `plugin`, attached to the repository and to both sources.
    package func run(_ plugin: any StrataPlugin) async {
        await run([plugin], onSources: true)
    }

    /// Runs the five steps through `plugins`, attached to the repository and, when `onSources`, to both sources.
    package func run(_ plugins: [any StrataPlugin], onSources: Bool) async {
        let users = CacheRepository(
            main: main.plugins(onSources ? plugins : [], name: "api"),
            cache: cache.plugins(onSources ? plugins : [], name: "memory")
        ).plugins(plugins, name: "users")
        _ = try? await users.get(KeyQuery("a"), operation: .cacheSync)
        _ = try? await users.get(KeyQuery("a"), operation: .cacheSync)
        _ = try? await users.get(KeyQuery("missing"), operation: .cacheSync)
        cache.script(
            .get,
            .failure(StrataError.notValid(staleEntry: StoredEntry(value: "old", metadata: EntryMetadata())))
        )
        main.script(.get, .failure(StrataError(.network, "The server is down")))
        _ = try? await users.get(KeyQuery("stale"), operation: CacheSyncOperation { _ in true })
        main.script(.get, .failure(StrataError(.network, "The server is down")))
        _ = try? await users.get(KeyQuery("broken"), operation: .cacheSync)
    }
}
