import Foundation
import Strata
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

    /// Listing or verifying an outbox holds no queued write's payload: no command shows one, and an outbox of many
    /// large uploads would otherwise be held whole in memory before a line is printed.
    @Test(arguments: [false, true])
    func listingAnOutboxHoldsNoPayload(verifying: Bool) async throws {
        // Given an outbox with a queued put (whose record holds its value) and a queued delete
        let folder = try TemporaryFolder()
        let outbox = try await OutboxToolTests.outbox(in: folder)

        // When its contents are read as inspect and verify read them
        let store = try Store.open(outbox, access: .readOnly)
        let contents = try store.contents(
            verifying: verifying,
            defaultMaxAge: nil,
            progress: Progress(requested: false, verb: "reading")
        )

        // Then every write is described, none with its payload
        let writes = contents.rows.compactMap(\.write)
        #expect(writes.count == 2)
        #expect(writes.allSatisfy { $0.value == nil })
    }
}
