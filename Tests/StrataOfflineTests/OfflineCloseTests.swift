import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataOffline
import StrataTestSupport
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
        _ = await poll(within: .seconds(30), until: { returned.withLock { $0 } != nil })

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

    /// `close()` called by main (here its transport; a plugin of it alike) during the repository's own write waited
    /// for that write to end, which waited for main: both hung for good. It now closes and returns; the write ends,
    /// and the outbox is given back after it.
    @Test(.timeLimit(.minutes(1)))
    func closeCalledByMainDuringAWriteDoesNotWaitForIt() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let repository = Locked<NotesRepository?>(nil)
        let transport = CallingBackTransport { await repository.withLock { $0 }?.close() }
        let notes = try await NotesRepository.open(
            main: server.source(client: HTTPClient(transport: transport)),
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder,
            configuration: standingStill()
        )
        repository.withLock { $0 = notes }

        let returned = Locked<WriteStatus?>(nil)
        let write = Task {
            let status = try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a")).status
            returned.withLock { $0 = status }
        }
        // Bounded, so that a regression fails here rather than hangs the suite.
        _ = await poll(within: .seconds(30), until: { returned.withLock { $0 } != nil })

        guard let status = returned.withLock({ $0 }) else {
            Issue.record("The write and its main's close() waited for each other")
            return
        }
        _ = try await write.value
        #expect(status == .saved)
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one"])
        let error = await strataError { try await notes.put(Note(id: "b", text: "two", version: 1), in: KeyQuery("b")) }
        #expect(error?.code == .alreadyInUse, "closed")
        await server.stop()
    }
}

/// URLSession's transport, which runs `callBack` before each request it sends (it downloads nothing): main calling
/// back into the repository whose write it serves.
private struct CallingBackTransport: HTTPTransport {
    let callBack: @Sendable () async -> Void
    let transport = URLSessionTransport()

    func send(_ request: HTTPRequest, maximumBodySize: Int) async throws -> HTTPResponse {
        await callBack()
        return try await transport.send(request, maximumBodySize: maximumBodySize)
    }

    func download(
        _ request: HTTPRequest,
        to destination: URL,
        maximumBodySize: Int,
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws -> HTTPResponse {
        throw StrataError(.operationNotSupported, "The notes source downloads nothing")
    }
}
