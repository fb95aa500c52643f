import Strata
import StrataTestSupport
import Testing

struct ObservationBroadcasterTests {
    private func consume(_ stream: AsyncStream<DataChange>) -> (Recorder<DataChange>, Task<Void, Never>) {
        let recorder = Recorder<DataChange>()
        let task = Task {
            for await change in stream { recorder.append(change) }
            recorder.finish()
        }
        return (recorder, task)
    }

    @Test func anObserverOfAKeySeesItsKeyAndChangesOfAllKeysInOrder() async throws {
        let broadcaster = ChangeBroadcaster()
        let (recorder, task) = consume(broadcaster.changes(forKey: "a", bufferingNewest: 10))
        defer { task.cancel() }
        broadcaster.publish(.put(key: "a"))
        broadcaster.publish(.put(key: "b"))
        broadcaster.publish(.delete(key: "a"))
        broadcaster.publish(.deleteAll)
        broadcaster.publish(.invalidateAll)
        let changes = try await recorder.wait(forCount: 4)
        #expect(changes == [.put(key: "a"), .delete(key: "a"), .deleteAll, .invalidateAll])
    }

    @Test func anObserverOfAllKeysSeesEveryChange() async throws {
        let broadcaster = ChangeBroadcaster()
        let (recorder, task) = consume(broadcaster.changes(bufferingNewest: 10))
        defer { task.cancel() }
        broadcaster.publishWrite(to: IdsQuery(["x", "y"]))
        broadcaster.publishDeletion(of: AllObjectsQuery())
        broadcaster.publishWrite(to: AllObjectsQuery())
        let changes = try await recorder.wait(forCount: 4)
        #expect(changes == [.put(key: "x"), .put(key: "y"), .deleteAll, .invalidateAll])
    }

    @Test func publishingWithoutObserversDoesNothing() {
        let broadcaster = ChangeBroadcaster()
        for index in 0..<1_000 { broadcaster.publish(.put(key: "\(index)")) }
        #expect(!broadcaster.hasObservers)
        #expect(broadcaster.maxBufferedCount == 0)
    }

    /// 10,000 consumers take their time to end on a loaded or sanitized run: the waits are bounded by the test's time
    /// limit alone.
    @Test(.timeLimit(.minutes(2))) func tenThousandObserversOpenedAndCancelledLeaveNone() async throws {
        let broadcaster = ChangeBroadcaster()
        let consumers = (0..<10_000).map { consume(broadcaster.changes(forKey: "\($0 % 10)")) }
        #expect(broadcaster.observerCount == 10_000)
        for (_, task) in consumers { task.cancel() }
        await poll { consumers.allSatisfy { recorder, _ in recorder.isFinished } }
        #expect(consumers.allSatisfy { recorder, _ in recorder.isFinished })
        await poll { broadcaster.observerCount == 0 }
        #expect(broadcaster.observerCount == 0)
        // A stream dropped without ever being iterated unregisters too.
        _ = broadcaster.changes(forKey: "dropped")
        #expect(broadcaster.observerCount == 0)
    }

    @Test func aBurstOfWritesToASlowObserverKeepsOnlyTheNewestChange() async throws {
        // Given an observer that does not read while 100,000 changes are published
        let broadcaster = ChangeBroadcaster()
        let stream = broadcaster.changes(forKey: "k")
        for index in 0..<100_000 { broadcaster.publish(index.isMultiple(of: 2) ? .put(key: "k") : .delete(key: "k")) }
        // Then its buffer never held more than one change, and the one it holds is the last
        #expect(broadcaster.maxBufferedCount == 1)
        #expect(broadcaster.droppedCount == 99_999)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .delete(key: "k"))
    }
}
