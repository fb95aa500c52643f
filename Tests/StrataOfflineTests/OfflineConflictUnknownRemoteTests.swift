import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataOffline
import StrataTestSupport
import Testing

/// Before, a conflict settled for main (``ConflictResolution/takeRemote``) while main's value could not be read removed
/// the cache's copy as a deletion: an open stream of the key said "deleted" of a value main still holds, and kept
/// saying it.
struct OfflineConflictUnknownRemoteTests {
    @Test(.timeLimit(.minutes(1)))
    func aWinOfMainWhoseValueIsUnknownIsNoDeletionToStreams() async throws {
        // Given a queued local write of a, and a stream of a showing it pending
        let readsFailForGood = Locked(false)
        var configuration = NotesRepository.Configuration.sentBySync
        configuration.isRetryable = { error in
            !readsFailForGood.withLock { $0 } && RetryPlugin.defaultIsRetryable(error)
        }
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let notes = try await notesRepository(server, folder: folder, configuration: configuration)
        server.isDown = true
        try await notes.put(Note(id: "a", text: "local", version: 1), in: KeyQuery("a"))
        var responses = notes.stream(KeyQuery("a")).makeAsyncIterator()
        var pending = await responses.next()
        if pending?.isLoading == true { pending = await responses.next() }
        #expect(pending?.value?.text == "local" && pending?.isPending == true)

        // When main refuses the write as a conflict, and its value cannot be read (for a reason not retried)
        server.setNote(try JSONEncoder().encode(Note(id: "a", text: "remote", version: 2)), forKey: "a")
        server.scriptConflict(key: "a")
        server.failsReads = true
        readsFailForGood.withLock { $0 = true }
        server.isDown = false
        let report = await notes.sync()
        #expect(report.resolvedByRemote == 1)

        // Then the stream reads again and shows main's answer (its failure), never "deleted"
        var failure: (any Error)?
        while failure == nil, let response = await responses.next() { failure = response.error }
        #expect(failure?.strataCode != .notFound)
        #expect(failure?.strataCode != nil)
        await notes.close()
        await server.stop()
    }
}
