import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataOffline
import StrataTestSupport
import Testing

/// A stream that asks main first shows, once the key's write reached main, what main holds then: not the answer it
/// had from main while the write waited.
struct OfflineStreamSettleTests {
    /// Before, a `.mainSync` stream whose last read of main failed while the write waited (main down) stayed at the
    /// waiting value, "saving…", after main took it; one whose last read answered main's older value (main up for
    /// reads, refusing writes) showed that older value as saved.
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func aMainSyncStreamShowsMainsValueOnceTheWriteReachedIt(mainDown: Bool) async throws {
        // Given main's value of a, shown by a stream that asks main first
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let notes = try await notesRepository(server, folder: folder)
        server.setNote(try JSONEncoder().encode(Note(id: "a", text: "old", version: 1)), forKey: "a")
        var responses = notes.stream(KeyQuery("a"), operation: .mainSync, bufferingNewest: 16).makeAsyncIterator()
        var shown = await responses.next()
        while shown?.isLoading == true { shown = await responses.next() }
        #expect(shown?.value?.text == "old")

        // When a write of a waits (main down, or refusing writes) and the stream shows it waiting
        if mainDown { server.isDown = true } else { server.failsWrites = true }
        #expect(try await notes.put(Note(id: "a", text: "new", version: 2), in: KeyQuery("a")).isPending)
        while let response = await responses.next(), !(response.isPending && response.value?.text == "new") {}
        // and then reaches main
        server.isDown = false
        server.failsWrites = false
        #expect(await notes.sync().delivered == 1)

        // Then the stream's next value not pending is main's, the write's
        var settled = await responses.next()
        while let response = settled, response.isPending || response.value == nil { settled = await responses.next() }
        #expect(settled?.value?.text == "new", "\(String(describing: settled))")
        await notes.close()
        await server.stop()
    }

    /// A stream that asks main first, showing a write main refuses until it is set aside, shows main's value, not
    /// pending, once it is: its last answer from main is main's value again, which the repository's stream does not
    /// repeat, so waiting for that stream's next answer would leave it "saving…" for good (found in review).
    @Test(.timeLimit(.minutes(1)))
    func aMainSyncStreamShowsMainsValueOnceTheWriteIsSetAside() async throws {
        // Given a queued write of a that main will refuse until it is set aside, shown by a stream that asks main
        var configuration = NotesRepository.Configuration.sentBySync
        configuration.conflictResolver = .keepLocal
        try await withNotes(configuration: configuration) { server, notes in
            server.setNote(try JSONEncoder().encode(Note(id: "a", text: "remote", version: 2)), forKey: "a")
            var responses = notes.stream(KeyQuery("a"), operation: .mainSync, bufferingNewest: 16).makeAsyncIterator()
            server.failsWrites = true
            #expect(try await notes.put(Note(id: "a", text: "local", version: 1), in: KeyQuery("a")).isPending)
            while let response = await responses.next(), !(response.isPending && response.value?.text == "local") {}
            server.failsWrites = false
            server.scriptConflict(key: "a", times: notes.configuration.maxConflicts + 1)

            // When it is set aside
            #expect(await notes.sync().setAside == 1)

            // Then the stream shows main's value, not pending
            var settled = await responses.next()
            while let response = settled, response.isPending || response.value == nil {
                settled = await responses.next()
            }
            #expect(settled?.value?.text == "remote", "\(String(describing: settled))")
        }
    }

    /// A write main took whose copy the cache evicted meanwhile is shown saved: the stream reads again, where it
    /// waited for a read nothing would start (found in review).
    @Test(.timeLimit(.minutes(1)))
    func aWriteWhoseCopyWasEvictedIsShownSaved() async throws {
        // Given a cache of one entry, a stream of a, and a queued write of a that a write of b then evicts
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let notes = try await NotesRepository.open(
            main: server.source,
            cache: MemoryDataSource<Note>(configuration: .init(countLimit: 1)),
            outboxFolder: folder,
            configuration: .sentBySync
        )
        var responses = notes.stream(KeyQuery("a"), bufferingNewest: 16).makeAsyncIterator()
        server.failsWrites = true
        #expect(try await notes.put(Note(id: "a", text: "a", version: 1), in: KeyQuery("a")).isPending)
        while let response = await responses.next(), !(response.isPending && response.value?.text == "a") {}
        #expect(try await notes.put(Note(id: "b", text: "b", version: 1), in: KeyQuery("b")).isPending)
        server.failsWrites = false

        // When both reach main
        #expect(await notes.sync().delivered == 2)

        // Then the stream shows a, saved
        var settled = await responses.next()
        while let response = settled, response.isPending || response.value == nil { settled = await responses.next() }
        #expect(settled?.value?.text == "a", "\(String(describing: settled))")
        await notes.close()
        await server.stop()
    }
}
