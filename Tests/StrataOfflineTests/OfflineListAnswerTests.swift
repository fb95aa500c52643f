import Foundation
import Strata
import StrataMemory
import StrataOffline
import StrataTestSupport
import StrataTesting
import Testing

/// A copy the offline repository drops while main may still hold the key (a write main refused, a conflict main won
/// whose value could not be read) takes the cache's list answer with it: a listing served from the cache never leaves
/// out a key main has.
struct OfflineListAnswerTests {
    /// An offline repository over a scripted main holding `a` and `b`, and a memory cache that keeps list answers, whose
    /// list answer was stored by a `.cacheSync` listing.
    private static func listed(
        in folder: URL,
        cache: MemoryDataSource<Note> = MemoryDataSource<Note>(configuration: .init(key: { $0.id }))
    ) async throws -> (ScriptedDataSource<Note>, OfflineRepository<ScriptedDataSource<Note>, MemoryDataSource<Note>>) {
        let main = ScriptedDataSource<Note>([
            "a": Note(id: "a", text: "remote", version: 1), "b": Note(id: "b", text: "remote", version: 1),
        ])
        let notes = try await OfflineRepository.open(
            main: main,
            cache: cache,
            outboxFolder: folder,
            configuration: .sentBySync
        )
        #expect(try await notes.getAll(AllObjectsQuery(), operation: .cacheSync).map(\.id) == ["a", "b"])
        #expect(try await notes.getAll(AllObjectsQuery(), operation: .cache).map(\.id) == ["a", "b"], "stored")
        return (main, notes)
    }

    /// Before, a write of an existing key main refused for good (HTTP 422) dropped its copy from the cache as a
    /// deletion: the cache's list answer stayed, and listings left the key out until it expired.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aRefusedWriteOfAnExistingKeyStaysListed(deletes: Bool) async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given a stored list answer of a and b
        let (main, notes) = try await Self.listed(in: folder)

        // When main refuses a write of a, then a listing still names a, with main's value
        try await Self.expectARefusedWriteOfAStaysListed(deletes: deletes, main: main, notes: notes)
        await notes.close()
    }

    /// Before, only a repository that had stored or served the list answer itself forgot it with the copy: one opened
    /// again over the same cache (after a restart) left the answer another had stored, and listings left the key out.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aRefusedWriteStaysListedThroughARepositoryOpenedAgainOverTheCache(deletes: Bool) async throws {
        let folders = [temporaryFolder(), temporaryFolder()]
        defer { for folder in folders { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) } }
        // Given a list answer of a and b stored through a repository that is then closed, and another opened over the
        // same main and cache, which has neither stored nor served a listing
        let cache = MemoryDataSource<Note>(configuration: .init(key: { $0.id }))
        let (main, first) = try await Self.listed(in: folders[0], cache: cache)
        await first.close()
        let notes = try await OfflineRepository.open(
            main: main,
            cache: cache,
            outboxFolder: folders[1],
            configuration: .sentBySync
        )

        // When main refuses its write of a, then a listing still names a, with main's value
        try await Self.expectARefusedWriteOfAStaysListed(deletes: deletes, main: main, notes: notes)
        await notes.close()
    }

    /// Has main refuse for good (HTTP 422) a write of `a` through `notes` (a delete, or a put), then expects a
    /// `.cacheSync` listing to name `a` and `b` with main's values.
    private static func expectARefusedWriteOfAStaysListed(
        deletes: Bool,
        main: ScriptedDataSource<Note>,
        notes: OfflineRepository<ScriptedDataSource<Note>, MemoryDataSource<Note>>
    ) async throws {
        let refusal = StrataError(.unexpectedResponse, "HTTP 422")
        main.fail(deletes ? .delete : .put, with: refusal, times: 1)
        let error = await strataError {
            if deletes {
                try await notes.delete(KeyQuery("a"))
            } else {
                try await notes.put(Note(id: "a", text: "refused", version: 2), in: KeyQuery("a"))
            }
        }
        #expect(error?.code == .unexpectedResponse, "\(String(describing: error))")

        let listed = try await notes.getAll(AllObjectsQuery(), operation: .cacheSync)
        #expect(listed.map(\.id) == ["a", "b"])
        #expect(listed.map(\.text) == ["remote", "remote"])
    }

    /// Before, a queued write that lost a conflict to main while main's value could not be read dropped its copy as a
    /// deletion: the cache's list answer stayed, and listings left the key out.
    @Test(.timeLimit(.minutes(1)))
    func aConflictMainWinsWithItsValueUnknownStaysListed() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given a stored list answer of a and b, and a queued write of a (main answered 503: only `sync()` sends it,
        // never a replay a main answer starts)
        let (main, notes) = try await Self.listed(in: folder)
        main.fail(.put, with: StrataError(.unexpectedResponse, "HTTP 503", isRetryable: true), times: 1)
        #expect(try await notes.put(Note(id: "a", text: "local", version: 2), in: KeyQuery("a")).isPending)

        // When main refuses it as a conflict, and its value cannot be read (for a reason not retried)
        main.fail(.put, with: StrataError(.conflict, "HTTP 409"), times: 1)
        main.fail(.get, with: StrataError(.unexpectedResponse, "HTTP 400"), times: 1)
        #expect(await notes.sync().resolvedByRemote == 1)

        // Then a listing still names a, with main's value
        let listed = try await notes.getAll(AllObjectsQuery(), operation: .cacheSync)
        #expect(listed.map(\.id) == ["a", "b"])
        #expect(listed.map(\.text) == ["remote", "remote"])
        await notes.close()
    }
}
