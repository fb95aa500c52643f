import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataOffline
import StrataTestSupport
import StrataTesting
import Testing

/// A write whose caller's task is cancelled while main has it (a SwiftUI `.task` that ends as its view closes) is
/// queued, as a replay interrupted so is, and delivered later: main may or may not have taken it, and the cache already
/// shows it. Before, the cancellation was thrown as a refusal and nothing was queued, so the cache kept an edit main
/// might never get, until the next read of main reverted it.
struct OfflineCancelledWriteTests {
    @Test(.timeLimit(.minutes(1)))
    func aWriteWhoseCallerIsCancelledOnItsWayIsQueuedAndDelivered() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let arrived = Gate()
        let main = Self.mainWhoseFirstWriteWaitsUntilCancelled(arrived)
        let cache = MemoryDataSource<Note>()
        let notes = try await OfflineRepository.open(
            main: main,
            cache: cache,
            outboxFolder: folder,
            configuration: standingStillConfiguration()
        )

        // When the caller of a write is cancelled while main holds it
        let note = Note(id: "a", text: "edited", version: 1)
        let write = Task { try await notes.put(note, in: KeyQuery("a")) }
        await arrived.wait()
        write.cancel()
        _ = try? await write.value

        // Then the write is delivered by the next replay, and main and the cache agree
        _ = await notes.sync()
        #expect(try await main.memory.get(KeyQuery("a")) == note)
        #expect(try await cache.get(KeyQuery("a")) == note)
        #expect(await notes.outbox.count == 0)
        await notes.close()
    }

    /// The replay that queueing the cancelled write started could run before the write's first attempt had ended, find
    /// its key still held by that attempt, and skip it: with no timer, the write then waited for another write, a main
    /// answer or a `sync()`. The write is now replayed once its attempt has ended, without a `sync()`.
    @Test(.timeLimit(.minutes(1)))
    func aWriteWhoseCallerIsCancelledOnItsWayIsDeliveredWithoutASync() async throws {
        for round in 0..<50 {
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
            let arrived = Gate()
            let main = Self.mainWhoseFirstWriteWaitsUntilCancelled(arrived)
            let notes = try await OfflineRepository.open(
                main: main,
                cache: MemoryDataSource<Note>(),
                outboxFolder: folder,
                configuration: standingStillConfiguration()
            )
            let note = Note(id: "a", text: "edited", version: round)
            let write = Task { try await notes.put(note, in: KeyQuery("a")) }
            await arrived.wait()
            write.cancel()
            _ = try? await write.value

            await notes.waitForReplays()
            #expect(try await main.memory.get(KeyQuery("a")) == note, "round \(round)")
            #expect(await notes.outbox.count == 0)
            await notes.close()
        }
    }

    /// A main whose first write opens `arrived` and waits until its task is cancelled; the later ones go through.
    private static func mainWhoseFirstWriteWaitsUntilCancelled(_ arrived: Gate) -> ScriptedMain {
        let writes = Locked(0)
        return ScriptedMain {
            let isFirst = writes.withLock { count in
                count += 1
                return count == 1
            }
            guard isFirst else { return }
            arrived.open()
            try await waitUntilCancelled()
        }
    }

    private func standingStillConfiguration() -> OfflineRepository<ScriptedMain, MemoryDataSource<Note>>.Configuration {
        .init(
            backoff: RetryPlugin.Backoff(initial: .seconds(60), maximum: .seconds(300), jitter: .none),
            replaysOnTimer: false,
            clock: ManualClock()
        )
    }
}
