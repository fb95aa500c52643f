import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataOffline

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

    /// A write of a key waiting for an earlier write of the key whose cache write hangs (a stalled disk, a cache that
    /// waits), its task cancelled, stops waiting at once and writes nothing, and the earlier write goes on — before, it
    /// waited for the turn for good, and so did `close()`, which waits for the writes under way (found in review).
    @Test(.timeLimit(.minutes(1)))
    func aWriteCancelledWhileAnEarlierWriteOfItsKeyHoldsItBackWritesNothing() async throws {
        try await withHeldCache { server, notes, cache in
            // Given a write of a whose cache write hangs, and a second write of a waiting for its turn
            let first = Task { try await notes.put(Note(id: "a", text: "held", version: 1), in: KeyQuery("a")) }
            await cache.arrived.wait()
            let second = Task { try await notes.put(Note(id: "a", text: "cancelled", version: 2), in: KeyQuery("a")) }
            while await notes.waitingForTurn(ofKey: "a") == 0 { await Task.yield() }

            // When the second write's task is cancelled
            second.cancel()

            // Then it stops waiting at once, while the first still hangs, and fails as cancelled (should it wait on,
            // the test's time limit lets the first write end, and the test fails rather than hang)
            let error = await withTaskCancellationHandler {
                await strataError { _ = try await second.value }
            } onCancel: {
                cache.release.open()
            }
            #expect(error?.code == .cancelled, "\(String(describing: error))")

            // And once the first write ends, main and the cache hold it, and nothing of the second
            cache.release.open()
            let saved = try await first.value
            let cached = try await cache.memory.get(KeyQuery("a"))
            #expect(saved.status == .saved)
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["held"])
            #expect(cached.text == "held")
            #expect(await notes.outbox.count == 0)
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
