import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataCache

/// `flush()` waits for the writes queued before it, not for those queued after: a steady stream of writes (a
/// scrolling feed of images over a slow disk) never lets the queue empty, and a flush that waited for an empty queue
/// never returned.
struct WriteBehindFlushTests {
    /// A write that blocks its thread until ``open()``, and the writes done, in order.
    final class Held: Sendable {
        private let gates = Locked<[String: DispatchSemaphore]>([:])
        private let written = Locked<[String]>([])
        private let begun = Locked<[String]>([])

        var done: [String] { written.withLock { $0 } }
        var started: [String] { begun.withLock { $0 } }

        /// A write named `name`, held until `open(name)` when `held`.
        func write(_ name: String, held: Bool) -> @Sendable (String) throws -> Void {
            let gate = held ? DispatchSemaphore(value: 0) : nil
            if let gate { gates.withLock { $0[name] = gate } }
            return { [self] value in
                begun.withLock { $0.append(value) }
                gate?.wait()
                written.withLock { $0.append(value) }
            }
        }

        func open(_ name: String) { gates.withLock { $0[name] }?.signal() }
    }

    /// Waits until `queue` has `count` callers of `flush()` waiting.
    private func waitForFlushes(_ count: Int, in queue: WriteBehind<String, String>) async {
        await poll { queue.flushing >= count }
    }

    @Test(.timeLimit(.minutes(1)))
    func aFlushReturnsOnceTheWritesBeforeItAreDoneWhileLaterOnesWait() async throws {
        // Given a write in progress, held, and a flush waiting for it
        let held = Held()
        let queue = WriteBehind<String, String>()
        queue.enqueue("a", forKey: "a", perform: held.write("a", held: true))
        let flush = Task { await queue.flush() }
        await waitForFlushes(1, in: queue)

        // When a write queued after the flush is held too, and the first one ends
        queue.enqueue("b", forKey: "b", perform: held.write("b", held: true))
        held.open("a")

        // Then the flush returns, with the later write still to come
        await flush.value
        #expect(held.done == ["a"])
        held.open("b")
        await queue.flush()
        #expect(held.done == ["a", "b"])
    }

    @Test(.timeLimit(.minutes(1)))
    func aWriteThatReplacesOneAFlushWaitsForIsWaitedForInstead() async throws {
        // Given a write in progress, held, one queued behind it, and a flush waiting for both
        let held = Held()
        let queue = WriteBehind<String, String>()
        queue.enqueue("x", forKey: "x", perform: held.write("x", held: true))
        queue.enqueue("y1", forKey: "y", perform: held.write("y1", held: false))
        let flush = Task { await queue.flush() }
        await waitForFlushes(1, in: queue)

        // When a later write of y replaces the one the flush waits for, and the first write ends
        queue.enqueue("y2", forKey: "y", perform: held.write("y2", held: false))
        held.open("x")
        await flush.value

        // Then the flush returned once y's value, the later one, was written
        #expect(held.done == ["x", "y2"])
    }

    /// The same when the flush waits for a write queued behind a running write of its own key: the later write
    /// takes the queued one's place. (It was queued after it, so the flush returned once the replaced write was
    /// skipped, before the value that replaced it was written.)
    @Test(.timeLimit(.minutes(1)))
    func aWriteThatReplacesOneQueuedBehindItsKeysRunningWriteIsWaitedFor() async throws {
        // Given a write of a in progress, held, a second one of a queued behind it, and a flush waiting for both
        let held = Held()
        let queue = WriteBehind<String, String>()
        queue.enqueue("a1", forKey: "a", perform: held.write("a1", held: true))
        await poll { !held.started.isEmpty }
        queue.enqueue("a2", forKey: "a", perform: held.write("a2", held: false))
        let flush = Task { await queue.flush() }
        await waitForFlushes(1, in: queue)

        // When a third write of a, held, replaces the second, and the first ends
        queue.enqueue("a3", forKey: "a", perform: held.write("a3", held: true))
        held.open("a1")
        await poll { held.started.contains("a3") }

        // Then the flush still waits while a's latest value is being written, and returns once it is
        #expect(queue.flushing == 1)
        held.open("a3")
        await flush.value
        #expect(held.done == ["a1", "a3"])
    }

    /// `drop(_:)` of one key waits for that key's write in progress, not for another key's: `remove(_:)` on the main
    /// thread is not held up by the downloads of other URLs being written.
    @Test(.timeLimit(.minutes(1)))
    func droppingAKeyDoesNotWaitForAnotherKeysWrite() async throws {
        let held = Held()
        let queue = WriteBehind<String, String>()
        queue.enqueue("a", forKey: "a", perform: held.write("a", held: true))
        queue.enqueue("b", forKey: "b", perform: held.write("b", held: false))
        await poll { !held.started.isEmpty }

        // b, queued behind a's write in progress, is dropped without waiting for a
        await Task.detached { queue.drop("b") }.value
        #expect(queue.pending(forKey: "b") == nil)
        held.open("a")
        await queue.flush()
        #expect(held.done == ["a"])
    }
}
