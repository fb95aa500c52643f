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
    @Test(.timeLimit(.minutes(1)))
    func aPassEndsAtTheFirstFailureTheConfigurationCallsUnreachable() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // A main that refuses every write as unavailable, counting them
        let writes = Locked(0)
        let main = ScriptedMain {
            writes.withLock { $0 += 1 }
            throw StrataError(.unexpectedResponse, "unavailable", isRetryable: true)
        }
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
        #expect(writes.withLock { $0 } == 3)

        let report = await notes.sync()

        #expect(writes.withLock { $0 } == 4, "one write sent, then the pass ended")
        #expect(report.remaining == 3)
        await notes.close()
    }
}
