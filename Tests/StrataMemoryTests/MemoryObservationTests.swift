import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

struct MemoryObservationTests {
    /// Before, the broadcaster was freed with its store without ending its streams: a consumer iterating one waited
    /// for ever (its task, and all it held, leaked).
    @Test(.timeLimit(.minutes(1))) func aReleasedStoreEndsItsStreams() async throws {
        var memory: MemoryDataSource<String>? = MemoryDataSource()
        let ofEveryKey = try #require(memory).changes(forKey: nil)
        let ofOneKey = try #require(memory).changes(forKey: "k")
        let consumers = [ofEveryKey, ofOneKey].map { changes in
            Task { () -> Int in
                var count = 0
                for await _ in changes { count += 1 }
                return count
            }
        }
        _ = try await memory?.put("v", in: KeyQuery("k"))
        memory = nil
        var counts: [Int] = []
        for consumer in consumers { counts.append(await consumer.value) }
        #expect(counts.allSatisfy { $0 <= 1 })
    }

    @Test func putsRemovalsAndRemoveAllAreAnnouncedButEvictionIsNot() async throws {
        let memory = MemoryDataSource<Int>(countLimit: 1)
        let recorder = Gate<[DataChange]>()
        let stream = memory.changeBroadcaster.changes(bufferingNewest: 16)
        let task = Task {
            var changes: [DataChange] = []
            for await change in stream {
                changes.append(change)
                if change == .deleteAll { break }
            }
            recorder.open(changes)
        }
        defer { task.cancel() }
        memory.setValue(1, forKey: "a")
        memory.setValue(2, forKey: "b")  // evicts "a": not announced
        memory.removeValue(forKey: "a")  // nothing there: not announced
        memory.removeValue(forKey: "b")
        _ = try await memory.put(3, in: KeyQuery("c"))
        try await memory.delete(AllObjectsQuery())
        let changes = try await recorder.value()
        #expect(changes == [.put(key: "a"), .put(key: "b"), .delete(key: "b"), .put(key: "c"), .deleteAll])
    }

    @Test func theOriginIsMemoryAlsoBehindAValidator() {
        let memory = MemoryDataSource<Int>()
        #expect(memory.origin == .memory)
        #expect(memory.validated(by: .maxAge(.seconds(1))).origin == .memory)
    }

    @Test func aWriteDirectlyOnTheMemoryCacheReachesTheRepositoryStream() async throws {
        // Given a screen on a repository whose cache is a memory source
        let clock = ManualClock()
        let memory = MemoryDataSource<String>(configuration: .init(clock: clock))
        memory.setValue("cached", forKey: "1")
        let repository = CacheRepository(main: ScriptedDataSource<String>(), cache: memory)
        let responses = repository.stream(KeyQuery("1"), bufferingNewest: 16)
        var iterator = responses.makeAsyncIterator()
        #expect(await iterator.next()?.isLoading == true)
        let first = await iterator.next()
        #expect(first?.value == "cached")
        #expect(first?.origin == .memory)
        #expect(first?.storedAt == clock.now())
        // When the memory source is written directly, then deleted from
        memory.setValue("direct", forKey: "1")
        #expect(await iterator.next()?.value == "direct")
        memory.removeValue(forKey: "1")
        #expect(await iterator.next()?.error?.strataCode == .notFound)
    }

    /// Before, a delete whose announcement reached the stream after a later write's (the memory store announces after
    /// it lets go of its lock) made the stream end on "deleted" while the store held the value.
    @Test(.timeLimit(.minutes(1))) func aDeleteAnnouncedAfterALaterWriteLeavesTheStreamOnTheValue() async throws {
        // Given a stream over a memory store whose removals reach it late, showing the first value
        let memory = MemoryDataSource<Reading>()
        memory.setValue(Reading("v1"), forKey: "k")
        let source = HeldRemovals(memory)
        defer { source.release() }
        var responses = SingleDataSourceRepository(source).stream(KeyQuery("k"), bufferingNewest: 16)
            .makeAsyncIterator()
        #expect(await responses.next()?.isLoading == true)
        #expect(await responses.next()?.value?.text == "v1")
        // When the key is deleted, its announcement held, and written again, which is announced at once
        memory.removeValue(forKey: "k")
        await source.waitForHeldRemoval()
        memory.setValue(Reading("v2"), forKey: "k")
        #expect(await responses.next()?.value?.text == "v2")
        // And the delete's announcement arrives last
        source.release()
        // Then the stream ends on the value the store holds, not on "deleted"
        let last = await responses.next()
        #expect(last?.error == nil)
        #expect(last?.value?.text == "v2")
        #expect(memory.value(forKey: "k")?.text == "v2")
    }

    @Test func aBurstOfWritesWithASlowConsumerStaysWithinItsBuffers() async throws {
        // Given a screen that reads its first value and then stalls
        let memory = MemoryDataSource<Int>()
        memory.setValue(0, forKey: "k")
        let repository = CacheRepository(main: ScriptedDataSource<Int>(), cache: memory)
        let stalled = Gate<Void>()
        let resume = Gate<Void>()
        let last = Gate<Int>()
        let consumer = Task {
            var seen = 0
            for await response in repository.stream(KeyQuery("k")) {
                guard let value = response.value else { continue }
                if seen == 0 {
                    stalled.open(())
                    try? await resume.value()
                }
                seen += 1
                if value == 100_000 {
                    last.open(seen)
                    break
                }
            }
        }
        defer { consumer.cancel() }
        try await stalled.value()
        // When 100,000 writes arrive while it stalls
        for value in 1...100_000 { memory.setValue(value, forKey: "k") }
        // Then the memory source never buffered more than one change for it
        #expect(memory.changeBroadcaster.maxBufferedCount <= 1)
        #expect(memory.changeBroadcaster.droppedCount > 0)
        // And once it resumes it reaches the last value after a handful of responses, not 100,000
        resume.open(())
        let responsesSeen = try await last.value()
        #expect(responsesSeen < 100)
    }

    @Test func aHundredThousandWritesWithoutObserversCostNoBuffering() {
        let memory = MemoryDataSource<Int>(countLimit: 10)
        for value in 0..<100_000 { memory.setValue(value, forKey: "\(value % 20)") }
        #expect(memory.changeBroadcaster.observerCount == 0)
        #expect(memory.changeBroadcaster.maxBufferedCount == 0)
    }
}

/// A value that is not `Equatable`: a stream emits every read of it, a repeat of the value before it included.
struct Reading: Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }
}

/// A one-shot value a test waits for; fails after a generous deadline instead of hanging.
final class Gate<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [CheckedContinuation<Value, any Error>] = []
    }

    struct TimedOut: Error {}

    private let state = Locked(State())

    func open(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            state.value = value
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    func value(deadline: Duration = .seconds(20)) async throws -> Value {
        let guardTask = Task { [weak self] in
            try? await Task.sleep(for: deadline)
            self?.expire()
        }
        defer { guardTask.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let value = state.withLock { state -> Value? in
                if let value = state.value { return value }
                state.waiters.append(continuation)
                return nil
            }
            if let value { continuation.resume(returning: value) }
        }
    }

    private func expire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            defer { state.waiters.removeAll() }
            return state.value == nil ? state.waiters : []
        }
        for waiter in waiters { waiter.resume(throwing: TimedOut()) }
    }
}
