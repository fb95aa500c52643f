import Foundation
import Strata
import StrataMemory
import StrataOffline
import StrataTesting
import Testing

/// A replay pass ends at the first failure the configuration's `isUnreachable` says means main could not be reached,
/// whatever its code: a main of the app's own (a gRPC `unavailable`) is not sent every other queued write to fail
/// again, each after its timeout. Before, the pass ended only on a `network` code.
struct OfflineUnreachableRuleTests {
    /// A main that refuses every write as unavailable, counting them.
    final class UnavailableMain: DataSource {
        let memory = MemoryDataSource<Note>()
        let writes = Locked(0)

        func get(_ query: any Query) async throws -> Note { try await memory.get(query) }
        func getAll(_ query: any Query) async throws -> [Note] { try await memory.getAll(query) }
        func put(_ value: Note, in query: any Query) async throws -> Note {
            writes.withLock { $0 += 1 }
            throw StrataError(.unexpectedResponse, "unavailable", isRetryable: true)
        }
        func putAll(_ values: [Note], in query: any Query) async throws -> [Note] {
            writes.withLock { $0 += 1 }
            throw StrataError(.unexpectedResponse, "unavailable", isRetryable: true)
        }
        func delete(_ query: any Query) async throws { try await memory.delete(query) }
    }

    @Test(.timeLimit(.minutes(1)))
    func aPassEndsAtTheFirstFailureTheConfigurationCallsUnreachable() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let main = UnavailableMain()
        let notes = try await OfflineRepository.open(
            main: main,
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder,
            configuration: .init(
                isUnreachable: { ($0 as? StrataError)?.message == "unavailable" },
                backoff: RetryPlugin.Backoff(initial: .seconds(60), maximum: .seconds(300), jitter: .none),
                replaysOnTimer: false,
                clock: ManualClock()
            )
        )
        for key in ["a", "b", "c"] {
            try await notes.put(Note(id: key, text: key, version: 1), in: KeyQuery(key))
        }
        #expect(main.writes.withLock { $0 } == 3)

        let report = await notes.sync()

        #expect(main.writes.withLock { $0 } == 4, "one write sent, then the pass ended")
        #expect(report.remaining == 3)
        await notes.close()
    }
}
