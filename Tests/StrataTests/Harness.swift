import Strata
import StrataTesting

/// A main and a cache source behind spies that share one journal.
struct Harness {
    let journal = CallJournal()
    let mainStore: ScriptedDataSource<String>
    let cacheStore: ScriptedDataSource<String>
    let main: SpyDataSource<ScriptedDataSource<String>>
    let cache: SpyDataSource<ScriptedDataSource<String>>

    init(main mainContents: [String: String] = [:], cache cacheContents: [String: String] = [:]) {
        mainStore = ScriptedDataSource(mainContents)
        cacheStore = ScriptedDataSource(cacheContents)
        main = SpyDataSource(name: "main", wrapping: mainStore, journal: journal)
        cache = SpyDataSource(name: "cache", wrapping: cacheStore, journal: journal)
    }

    typealias Spy = SpyDataSource<ScriptedDataSource<String>>

    func repository(_ configuration: CacheRepository<Spy, Spy>.Configuration = .init()) -> CacheRepository<Spy, Spy> {
        CacheRepository(main: main, cache: cache, configuration: configuration)
    }
}

/// An operation no repository knows.
struct UnknownOperation: RepositoryOperation {}

/// A query no key-value source knows.
struct SearchQuery: Query, Hashable {
    let text: String
}

let offline = StrataError(.network, "offline")
