import Foundation
import LoopbackServer
import Strata
import StrataOffline
import StrataTesting
import Testing

/// Closing a repository, or cancelling a sync, while main has not answered a replayed write.
struct OfflineCloseTests {
    /// A server that is up, and an outbox folder holding one write of `a` queued while it was down.
    static func queuedWrite() async throws -> (NotesServer, URL) {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        try await queueWhileDown([Note(id: "a", text: "one", version: 1)], on: server, folder: folder)
        server.isDown = false
        return (server, folder)
    }

    /// `close()` waited for the send on its way: a server that did not answer held it up to the transport's whole
    /// timeout, for each send. A sync whose task was cancelled cancelled its send, and the cancellation, no
    /// retryable error, set the write aside.
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func closeOrACancelledSyncCancelsASendOnItsWayAndKeepsTheWriteQueued(closing: Bool) async throws {
        // Given a queued write, and a server that holds the replay's send of it without answering
        let (server, folder) = try await Self.queuedWrite()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let (arrived, release) = (Gate(), Gate())
        // (In a scope of its own: the outbox is free for the next run once the repository is gone.)
        do {
            let notes = try await notesRepository(server, folder: folder, configuration: standingStill())
            let queued = try #require(await notes.outbox.pendingWrites.first)
            server.holdNextWrite(arrived: arrived, release: release)
            let replay = Task { await notes.sync() }
            await arrived.wait()

            // When the repository closes, or the sync's task is cancelled, while the server holds the send
            if closing { await notes.close() } else { replay.cancel() }

            // Then the sync returned with no answer, and the write is still queued as it was, not set aside
            let report = await replay.value
            #expect(report.delivered == 0 && report.remaining == 1 && report.setAside == 0)
            let kept = await notes.outbox.pendingWrites
            #expect(kept == [queued])
            await notes.close()
        }

        // And the next run delivers it, once
        release.open()
        let reopened = try await notesRepository(server, folder: folder, configuration: standingStill())
        #expect(await reopened.sync().delivered == 1)
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one"])
        await reopened.close()
        await server.stop()
    }

    /// A sync waiting for another replay (the repository's own, held by a slow main or a conflict resolver asking
    /// the user) returns when its task is cancelled: it waited for the whole other replay first.
    @Test(.timeLimit(.minutes(1)))
    func aSyncCancelledWhileAnotherReplayRunsReturnsAtOnce() async throws {
        // Given a replay whose send the server holds
        let (server, folder) = try await Self.queuedWrite()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let (arrived, release) = (Gate(), Gate())
        let notes = try await notesRepository(server, folder: folder, configuration: standingStill())
        server.holdNextWrite(arrived: arrived, release: release)
        let first = Task { await notes.sync() }
        await arrived.wait()

        // When a second sync, waiting for it, is cancelled
        let returned = Locked<SyncReport?>(nil)
        let second = Task {
            let report = await notes.sync()
            returned.withLock { $0 = report }
        }
        second.cancel()
        // Bounded, so that a regression fails here rather than hangs (the held send is let go below either way).
        for _ in 0..<3_000 where returned.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }

        // Then it returned while the first still runs, having sent nothing; the first delivers the write
        let report = returned.withLock { $0 }
        #expect(report?.delivered == 0 && report?.remaining == 1, "\(String(describing: report))")
        release.open()
        #expect(await first.value.delivered == 1)
        await second.value
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one"])
        await notes.close()
        await server.stop()
    }
}
