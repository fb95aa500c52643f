import Foundation
import Strata
import StrataMemory
import StrataTesting
import Testing

/// The memory store against the shared data-source conformance suite.
struct MemoryConformanceTests {
    @Test func memoryDataSourcePassesTheConformanceSuite() async throws {
        try await DataSourceConformance(
            capabilities: .keyValueStore,
            makeSource: { MemoryDataSource<Int>() },
            makeValue: { $0 }
        ).run()
    }
}
