import Foundation
import StrataStorage
import Testing

@testable import strata

/// The writing commands over an offline outbox, run in this process so the flushes of its records folder can be
/// counted (``StrataStorage/StoreFolder/watchSyncs(of:)``): an outbox is durable by default, and the tool changes its
/// records as durably.
struct OutboxDurabilityToolTests {
    @Test func clearOfAnOutboxFlushesItsRecordsFolder() async throws {
        // Given an outbox with two queued writes, its records folder's flushes counted
        let folder = try TemporaryFolder()
        let outbox = try await OutboxToolTests.outbox(in: folder)
        let records = try StoreFolder.open(outbox + "/records", create: false)
        StoreFolder.watchSyncs(of: records.identity)
        defer { StoreFolder.unwatchSyncs(of: records.identity) }

        // When clear --yes drops them
        let status = try Clear.run(try Options(["clear", outbox, "--yes", "--json"]))

        // Then the records folder was flushed: the drop survives a power loss as the outbox's own writes do
        #expect(status == 0)
        #expect((StoreFolder.unwatchSyncs(of: records.identity) ?? 0) >= 1)
    }
}
