import Foundation
import LoopbackServer
import Strata
import StrataOffline
import Testing

/// A conflict settled in a delivery counts towards setting the write aside even when the next conflict of the same
/// delivery waits, its read of main failing. Before, that wait put the count back to what it was when the delivery
/// began: a main that answered 409 again and again, its reads failing every other time, never had the write set
/// aside, and was sent it for ever under new idempotency keys.
struct OfflineConflictCountTests {
    @Test(.timeLimit(.minutes(1)))
    func aConflictSettledBeforeAReadOfMainFailedStillCounts() async throws {
        // A resolver that keeps the local value, and makes main's reads fail from then on
        let failingReads = Locked<NotesServer?>(nil)
        let (server, notes, folder) = try await OfflineConflictTests.conflicted(
            ConflictResolver { _ in
                failingReads.withLock { $0 }?.failsReads = true
                return .keepLocal
            }
        )
        failingReads.withLock { $0 = server }
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }

        // Given a queued write that main refuses twice
        server.scriptConflict(key: "a", times: 2)

        // When the replay settles the first conflict (keep the local value), and the resend's conflict cannot read main
        let report = await notes.sync()

        // Then the write waits, the settled conflict counted
        #expect(report.remaining == 1 && report.setAside == 0, "\(report)")
        let waiting = try #require(await notes.outbox.pendingWrites.first)
        #expect(waiting.conflicts == 1)
        #expect(waiting.lastError?.contains("503") == true, "\(String(describing: waiting.lastError))")
        await notes.close()
        await server.stop()
    }
}
