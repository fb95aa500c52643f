import Foundation
import Strata
import StrataMemory
import Testing

/// Batched reads that fetch only what is missing, counted on a real loopback server.
struct MissingIdsLoopbackTests {
    @Test func aHundredIdReadWithNinetyCachedMakesOneRequestForTheTenMissing() async throws {
        // Given an API of 100 items and a memory cache holding 90 of them
        let api = try await ItemsAPI.start(count: 100)
        let cache = MemoryDataSource<CatalogueItem>()
        let cached = (0..<100).filter { $0 % 10 != 3 }
        _ = try await cache.putAll(cached.map(CatalogueItem.init(id:)), in: IdsQuery(cached))
        let repository = CacheRepository(main: api.source, cache: cache)

        // When the 100 are read
        let items = try await repository.getAll(IdsQuery(Array(0..<100)), operation: .cacheSync)

        // Then the server saw one request, for the 10 missing ids, and the answer is in the order asked
        #expect(items == (0..<100).map(CatalogueItem.init(id:)))
        #expect(api.listRequests == [[3, 13, 23, 33, 43, 53, 63, 73, 83, 93]])

        // And a second read makes no request: the ten are cached now
        _ = try await repository.getAll(IdsQuery(Array(0..<100)), operation: .cacheSync)
        #expect(api.server.requestCount() == 1)
        await api.server.stop()
    }

    @Test func idsTheServerDoesNotHaveAreNotFoundOneByOne() async throws {
        // Given an API of 5 items and an empty cache
        let api = try await ItemsAPI.start(count: 5)
        let cache = MemoryDataSource<CatalogueItem>()
        let repository = CacheRepository(main: api.source, cache: cache)

        // When ids 3 to 6 are read
        let error = await #expect(throws: StrataError.self) {
            try await repository.getAll(IdsQuery([3, 4, 5, 6]), operation: .cacheSync)
        }

        // Then 5 and 6 are not found, 3 and 4 are returned in the error and cached
        #expect(error?.code == .notFound)
        #expect(error?.partialValues(as: CatalogueItem.self) == [CatalogueItem(id: 3), CatalogueItem(id: 4), nil, nil])
        #expect(cache.value(forKey: "3") == CatalogueItem(id: 3))
        #expect(api.listRequests == [[3, 4, 5, 6]])
        await api.server.stop()
    }
}
