import Strata
import StrataTesting
import Testing

/// Where a `CacheRepository` reads its cache: a cache whose reads may block never on the caller's actor, with or
/// without plugins on the way (a cache that reads without blocking may be read there: where the call is specialised
/// for its type, which these unoptimised tests do not show).
struct CacheRepositoryExecutorTests {
    @Test(arguments: [true, false])
    func aCacheWhoseReadsMayBlockIsReadOffTheCallersActor(plugged: Bool) async throws {
        let cache = IsolationRecordingCache(readsWithoutBlocking: false)
        let value = try await Reader().read(Self.repository(cache: cache, plugged: plugged))
        #expect(value == "cached")
        #expect(cache.isolations == [nil])
    }

    @Test func everyWrapperTellsWhetherItsSourceReadsWithoutBlocking() {
        for blocking in [false, true] {
            let cache = IsolationRecordingCache(readsWithoutBlocking: !blocking)
            let wrappers: [any DataSourceCapabilities] = [
                cache.plugins([]),
                cache.plugins([CountingOnly()]),
                cache.validated(by: ClosureValidator { _, _ in true }),
                cache.mapped(to: { $0 }, from: { $0 }),
                DataSourceAssembler(cache),
                SpyDataSource(name: "spy", wrapping: cache),
            ]
            for wrapper in wrappers { #expect(wrapper.readsWithoutBlocking == !blocking) }
        }
    }

    /// The repository read: the cache, plugged with a counting plugin on both layers when `plugged`.
    static func repository(
        cache: IsolationRecordingCache,
        plugged: Bool
    ) -> any GetRepository<String> {
        let main = IsolationRecordingCache(readsWithoutBlocking: false)
        guard plugged else { return CacheRepository(main: main, cache: cache) }
        return CacheRepository(main: main, cache: cache.plugins([CountingOnly()], name: "cache"))
            .plugins([CountingOnly()], name: "repository")
    }
}

/// An actor that reads a repository from its own executor.
private actor Reader {
    func read(_ repository: some GetRepository<String>) async throws -> String {
        try await repository.get(KeyQuery("k"), operation: .cacheSync)
    }
}

/// A plugin that only counts calls, so plugged reads take the counting path.
private struct CountingOnly: StrataPlugin, CallCounter {
    func participation(in attachment: PluginAttachment) -> PluginParticipation { .counts(self) }
    func count(_ call: CountedCall) {}
}

/// A source that answers every read with `cached` on the executor it is called on, and records that executor's
/// actor (`nil` for the global concurrent executor).
final class IsolationRecordingCache: DataSource {
    let readsWithoutBlocking: Bool
    private let recorded = Locked<[ObjectIdentifier?]>([])

    init(readsWithoutBlocking: Bool) {
        self.readsWithoutBlocking = readsWithoutBlocking
    }

    /// The actor of each read, in order.
    var isolations: [ObjectIdentifier?] { recorded.withLock { $0 } }

    nonisolated(nonsending) func get(_ query: any Query) async throws -> String {
        let isolation = #isolation
        recorded.withLock { $0.append(isolation.map { ObjectIdentifier($0) }) }
        return "cached"
    }

    func getAll(_ query: any Query) async throws -> [String] { [try await get(query)] }
    func put(_ value: String, in query: any Query) async throws -> String { value }
    func putAll(_ values: [String], in query: any Query) async throws -> [String] { values }
    func delete(_ query: any Query) async throws {}
}
