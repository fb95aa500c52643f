import Foundation
import Strata
import StrataJSONFile
import StrataTesting
import Testing

struct JSONFileDataSourceObservationTests {
    @Test(.timeLimit(.minutes(1))) func writesRemovalsAndClearsAreAnnouncedInOrder() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixture(folder: folder).open()
            var changes = store.changes(forKey: nil).makeAsyncIterator()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            #expect(await changes.next() == .put(key: "a"))
            try store.removeValue(forKey: "a")
            #expect(await changes.next() == .delete(key: "a"))
            try store.removeAll()
            #expect(await changes.next() == .deleteAll)
            #expect(store.origin == .file)
        }
    }

    @Test(.timeLimit(.minutes(1))) func aDirectWriteReachesARepositoryStreamOverTheStore() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixture(folder: folder).open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            let repository = CacheRepository(main: ScriptedDataSource<Item>(), cache: store)
            // Every response kept: with the default buffer of one, a consumer slower than the first read
            // sees its value without the loading before it (seen under ThreadSanitizer).
            var responses = repository.stream(KeyQuery("a"), operation: .cache, bufferingNewest: 16).makeAsyncIterator()
            #expect(await responses.next()?.isLoading == true)
            #expect(await responses.next()?.value == Item(name: "a", number: 1))
            try store.setValue(Item(name: "a", number: 2), forKey: "a")
            #expect(await responses.next()?.value == Item(name: "a", number: 2))
        }
    }
}

struct JSONFileDataSourceConformanceTests {
    @Test func jsonFileDataSourcePassesTheConformanceSuite() async throws {
        try await withTemporaryFolder { folder in
            try await DataSourceConformance(
                capabilities: .keyValueStore,
                makeSource: {
                    try JSONFileDataSource<Item>(
                        configuration: .init(folder: folder.appendingPathComponent(UUID().uuidString))
                    )
                },
                makeValue: { Item(name: "item \($0)", number: $0) }
            ).run()
        }
    }
}
