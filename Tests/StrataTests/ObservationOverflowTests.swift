import Strata
import Testing

/// An observer of every key whose buffer overflows: a change it loses names a key it may never hear of again, so it
/// is told that everything may have changed.
@Suite(.timeLimit(.minutes(1)))
struct ObservationOverflowTests {
    @Test func aLostChangeIsFollowedByInvalidateAll() async {
        // Given an observer of every key with room for two changes, not reading
        let broadcaster = ChangeBroadcaster()
        let stream = broadcaster.changes(bufferingNewest: 2)
        // When three keys change
        for key in ["a", "b", "c"] { broadcaster.publish(.put(key: key)) }
        // Then it reads the newest change and `invalidateAll` after it, which stands for the two it lost
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .put(key: "c"))
        #expect(await iterator.next() == .invalidateAll)
        #expect(broadcaster.droppedCount == 2)
    }

    @Test func aResetAlreadyOnItsWayStandsForTheChangesBeforeIt() async {
        // Given an observer of every key with room for three changes, sent a change and then `invalidateAll`
        let broadcaster = ChangeBroadcaster()
        let stream = broadcaster.changes(bufferingNewest: 3)
        broadcaster.publish(.put(key: "a"))
        broadcaster.publish(.invalidateAll)
        // When two more keys change and the first change is lost
        broadcaster.publish(.put(key: "b"))
        broadcaster.publish(.put(key: "c"))
        // Then no second `invalidateAll` is sent: the one it reads first came after the change it lost
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .invalidateAll)
        #expect(await iterator.next() == .put(key: "b"))
        #expect(await iterator.next() == .put(key: "c"))
        #expect(broadcaster.droppedCount == 1)
    }

    @Test func aFloodLeavesTheNewestChangesAfterOneInvalidateAll() async {
        // Given an observer of every key with room for four changes, not reading while 1,000 keys change
        let broadcaster = ChangeBroadcaster()
        let stream = broadcaster.changes(bufferingNewest: 4)
        for index in 0..<1_000 { broadcaster.publish(.put(key: "\(index)")) }
        // Then its buffer holds `invalidateAll` and the three newest changes after it
        var iterator = stream.makeAsyncIterator()
        var read: [DataChange] = []
        for _ in 0..<4 { if let change = await iterator.next() { read.append(change) } }
        #expect(read == [.invalidateAll, .put(key: "997"), .put(key: "998"), .put(key: "999")])
        #expect(broadcaster.maxBufferedCount == 4)
    }

    @Test func anObserverOfOneKeyIsNotSentInvalidateAll() async {
        // Given an observer of one key with room for one change, not reading
        let broadcaster = ChangeBroadcaster()
        let stream = broadcaster.changes(forKey: "k", bufferingNewest: 1)
        // When the key changes twice
        broadcaster.publish(.put(key: "k"))
        broadcaster.publish(.delete(key: "k"))
        // Then it reads the newest change, which stands for the older one of the same key
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .delete(key: "k"))
        #expect(broadcaster.droppedCount == 1)
    }

    @Test func aSlowObserverHearsOfEveryKeyOrOfAnInvalidateAllAfterIt() async throws {
        // Given an observer of every key with room for three changes, reading while it lets other tasks run
        let broadcaster = ChangeBroadcaster()
        let stream = broadcaster.changes(bufferingNewest: 3)
        // When 2,000 keys change in bursts of 4 to 20
        let read = try await readSlowly(stream, keys: 2_000) { key, _ in broadcaster.publish(.put(key: key)) }
        // Then every key it did not hear of was followed by an `invalidateAll` (some were lost: each burst outgrows
        // the buffer unless the reader keeps pace with it, which it cannot for long)
        #expect(broadcaster.droppedCount > 0)
        #expect(unheardKeys(in: read, of: Array(0..<2_000)) == [])
    }

    @Test(arguments: [100, 2_000])
    func aRepositoryAsASourceMergesItsChangesWithoutLosingAKeySilently(keys: Int) async throws {
        // Given an observer of every key of a repository used as a source: its sources' changes merged, 64 waiting
        let (cache, main) = (ObservableStore<Int>(), ObservableStore<Int>())
        let stream = CacheRepository(main: main, cache: cache).asDataSource().changes(forKey: nil)
        // When keys of its cache and of its main change in turn, read only once they all changed: 100 (each
        // source's stream keeps its 50 changes, the merged stream loses some) or 2,000
        let read = try await readSlowly(stream, keys: keys, sources: 2, readsWhileChanging: false) { key, source in
            (source == 0 ? cache : main).changeBroadcaster.publish(.put(key: key))
        }
        // Then every key it did not hear of was followed by an `invalidateAll`: each source's changes keep their order
        // in the merged stream, but the two sources' interleave as their forwarding tasks run
        for source in 0..<2 {
            #expect(unheardKeys(in: read, of: Array(stride(from: source, to: keys, by: 2))) == [])
        }
    }

    /// Reads `stream` in a task that lets other tasks run between reads while `change` is called for the keys
    /// `0..<keys` in bursts of 4 to 20 (or, when not `readsWhileChanging`, from when they all changed and other
    /// tasks ran a while), key `k` through source `k % sources`. Returns what was read once the reader has caught up
    /// with every source: a last change made while it lags may be dropped, so one is made again through each source
    /// until all are read, then a final one through each, read after anything sent since. A source's changes keep their
    /// order in the stream, but the sources' reach it as their forwarding tasks run: the reader has caught up only once
    /// it read a change sent through each after its keys (one forwarding task may still hold keys the other's last
    /// change overtook). The stream must keep more than `sources` changes.
    private func readSlowly(
        _ stream: AsyncStream<DataChange>,
        keys: Int,
        sources: Int = 1,
        readsWhileChanging: Bool = true,
        change: (_ key: String, _ source: Int) -> Void
    ) async throws -> [DataChange] {
        let recorder = Recorder<DataChange>()
        let read = {
            Task {
                for await change in stream {
                    recorder.append(change)
                    for _ in 0..<Int.random(in: 0...3) { await Task.yield() }
                }
            }
        }
        var consumer = readsWhileChanging ? read() : nil
        defer { consumer?.cancel() }
        var index = 0
        while index < keys {
            for _ in 0..<min(Int.random(in: 4...20), keys - index) {
                change("\(index)", index % sources)
                index += 1
            }
            await Task.yield()
        }
        if consumer == nil {
            for _ in 0..<100 { await Task.yield() }
            consumer = read()
        }
        /// Makes a change named `name` through each source; returns them.
        func changeEverySource(_ name: String) -> [DataChange] {
            (0..<sources).map { source in
                change("\(name) \(source)", source)
                return DataChange.put(key: "\(name) \(source)")
            }
        }
        // Each round's last changes are read, or one is dropped and followed by an `invalidateAll`, which comes after
        // the changes waiting when the round began: the buffer drains, and the last changes are read within a few
        // rounds.
        for round in 0...keys {
            let readSoFar = recorder.items.count
            let last = changeEverySource("last \(round)")
            let read = try await recorder.wait { read in
                last.allSatisfy(read.contains) || read.dropFirst(readSoFar).contains(.invalidateAll)
            }
            guard last.allSatisfy(read.contains) else { continue }
            // Sending the last changes may have dropped a change, and the `invalidateAll` after it waits still: with
            // room for more than `sources` changes, the final ones are never dropped, and are read after it.
            let final = changeEverySource("final")
            return try await recorder.wait { read in final.allSatisfy(read.contains) }
        }
        Issue.record("the reader never caught up")
        return recorder.items
    }

    /// The keys of `keys` (in the order they were sent) that `read` neither names nor follows with an
    /// `invalidateAll`: one read after every change of an earlier one of `keys` that was read.
    private func unheardKeys(in read: [DataChange], of keys: [Int]) -> [Int] {
        var firstRead: [Int: Int] = [:]
        for (position, change) in read.enumerated() {
            if let key = change.key.flatMap(Int.init), firstRead[key] == nil { firstRead[key] = position }
        }
        let resets = read.indices.filter { read[$0] == .invalidateAll }
        var lastEarlierRead = -1
        var unheard: [Int] = []
        for key in keys {
            if let position = firstRead[key] {
                lastEarlierRead = max(lastEarlierRead, position)
            } else if !resets.contains(where: { $0 > lastEarlierRead }) {
                unheard.append(key)
            }
        }
        return unheard
    }
}
