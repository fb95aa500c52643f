import Foundation
import LoopbackServer
import Strata
import StrataOffline
import StrataTesting
import Testing

/// Closing a repository, or cancelling a sync, while main has not answered a replayed write.
struct OfflineCloseTests {
    /// `close()` waited for the send on its way: a server that did not answer held it up to the transport's whole
    /// timeout, for each send. A sync whose task was cancelled cancelled its send, and the cancellation, no
    /// retryable error, set the write aside.
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func closeOrACancelledSyncCancelsASendOnItsWayAndKeepsTheWriteQueued(closing: Bool) async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given a queued write, and a server that holds the replay's send of it without answering
        try await queueWhileDown([Note(id: "a", text: "one", version: 1)], on: server, folder: folder)
        server.isDown = false
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
}
