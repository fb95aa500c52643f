import Foundation
import LoopbackServer
import Strata
import StrataOffline
import StrataTestSupport
import Testing

/// An offline repository holds no descriptor in its outbox's folder once it is closed: after twenty opened, written
/// through (main up, then down so the write is queued, then replayed) and closed in one folder.
struct OfflineDescriptorTests {
    @Test(.timeLimit(.minutes(1)))
    func closedRepositoriesHoldNothingOpen() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        for round in 0..<20 {
            let notes = try await notesRepository(server, folder: folder)
            try await notes.put(Note(id: "a", text: "sent \(round)", version: round), in: KeyQuery("a"))
            server.isDown = true
            try await notes.put(Note(id: "b", text: "queued \(round)", version: round), in: KeyQuery("b"))
            server.isDown = false
            #expect(await notes.sync().delivered == 1)
            // (While a repository is open, its outbox holds its folder: what is counted below is what it held.) A
            // program started meanwhile inherits none of it.
            if round == 0 {
                #expect(!openDescriptors(under: folder).isEmpty)
                #expect(try descriptorsAChildInherits(under: folder) == [])
            }
            await notes.close()
        }
        await server.stop()
        #expect(openDescriptors(under: folder) == [])
    }
}
