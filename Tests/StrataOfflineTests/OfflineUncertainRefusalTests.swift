import Foundation
import Strata
import StrataMemory
import StrataOffline
import StrataTesting
import Testing

/// A first attempt whose outcome is unknown (main's answer was lost after the write was sent), which the full outbox
/// then refuses, says main may have the write. Before, the outbox's error was thrown alone, saying neither main nor the
/// outbox had it: an app that saved again, under a new idempotency key, could have main apply the edit twice.
struct OfflineUncertainRefusalTests {
    @Test(.timeLimit(.minutes(1)))
    func aRefusedWriteMainMayHaveTakenSaysSo() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // A main whose every write times out once it was sent: main may have carried it out
        let notes = try await OfflineRepository.open(
            main: ScriptedMain {
                throw StrataError(.network, "timed out after the write was sent", mayHaveTakenEffect: true)
            },
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder,
            configuration: .init(
                backoff: RetryPlugin.Backoff(initial: .seconds(60), jitter: .none),
                replaysOnTimer: false,
                clock: ManualClock()
            ),
            outboxLimits: .init(maximumWrites: 1, maximumBytes: 1 << 20)
        )

        // Given a full outbox
        #expect(try await notes.put(Note(id: "b", text: "b1", version: 1), in: KeyQuery("b")).isPending)

        // When a write of a key with nothing queued goes to main, whose answer is lost, and the outbox refuses it
        let error = await #expect(throws: StrataError.self) {
            try await notes.put(Note(id: "a", text: "a1", version: 1), in: KeyQuery("a"))
        }

        // Then the outbox's refusal says main may have the write, and carries main's error
        #expect(error?.code == .tooLarge)
        #expect(error?.mayHaveTakenEffect == true, "\(String(describing: error))")
        #expect((error?.underlying as? StrataError)?.message == "timed out after the write was sent")
        #expect(error?.message.contains("main may have it") == true, "\(String(describing: error))")
        #expect(await notes.outbox.pendingWrites.map(\.key) == ["b"])
        await notes.close()
    }
}
