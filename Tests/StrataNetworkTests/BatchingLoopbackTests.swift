import Foundation
import Strata
import StrataTesting
import Testing

/// DataLoader-style batching, counted on a real loopback server.
struct BatchingLoopbackTests {
    @Test func aThousandConcurrentSingleIdGetsReachTheServerAsTenRequests() async throws {
        // Given an API of 1,000 items behind a batching source of batches of 100
        let api = try await ItemsAPI.start(count: 1_000)
        let clock = ManualClock()
        let items = api.source.batched(maxBatchSize: 100, window: Duration.seconds(1), clock: clock)

        // When 1,000 single-id gets run at once
        let values = try await withThrowingTaskGroup(of: CatalogueItem.self) { group in
            for id in 0..<1_000 { group.addTask { try await items.get(IdQuery(id)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then every caller got its item, and the server saw 10 requests of 100 ids each
        #expect(Set(values) == Set((0..<1_000).map(CatalogueItem.init(id:))))
        #expect(api.listRequests.count == 10)
        #expect(api.listRequests.allSatisfy { $0.count == 100 })
        #expect(Set(api.listRequests.joined()).count == 1_000)
        await api.server.stop()
    }
}
