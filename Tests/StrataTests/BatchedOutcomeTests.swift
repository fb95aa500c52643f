import Foundation
import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// A plugin that observes, and notes each repository call as `<key>: <outcome> from <origin>`.
private final class RepositoryOutcomes: StrataPlugin {
    private let recorded = Locked<[String]>([])

    /// The lines noted, in key order.
    var lines: [String] { recorded.withLock { $0.sorted() } }

    func participation(in attachment: PluginAttachment) -> PluginParticipation { .observes }

    func callDidFinish(_ observed: ObservedCall, result: (any Sendable)?) {
        guard observed.call.operation != nil, let query = observed.call.query as? any KeyedQuery else { return }
        recorded.withLock { $0.append("\(query.key): \(observed.outcome) from \(observed.origin ?? "-")") }
    }
}

/// Notes whether each call it sees runs as a stream's own re-read.
private final class StreamRefreshProbe: StrataPlugin {
    private let seen = Locked<[Bool]>([])

    var marks: [Bool] { seen.withLock { $0 } }

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        let mark = ObservationScope.isStreamRefresh
        seen.withLock { $0.append(mark) }
        return try await next()
    }
}

/// A store holding `keys`, each as its own value: a list read of a key it lacks throws *not found*.
private func store(_ keys: [String]) -> EntryStore {
    EntryStore(Dictionary(uniqueKeysWithValues: keys.map { ($0, StoredEntry(value: $0, storedAt: nil)) }))
}

/// Runs `read` for each id concurrently, once `source` holds them all in one batch, then sends the batch.
private func readTogether<Source: GetDataSource>(
    _ ids: [Int],
    through source: BatchingDataSource<Source>,
    clock: ManualClock,
    _ read: @escaping @Sendable (Int) async throws -> Void
) async {
    await withTaskGroup(of: Void.self) { group in
        for id in ids { group.addTask { try? await read(id) } }
        await poll { source.pendingCount >= ids.count }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(5))
    }
}

/// Before, a batch's source calls were steps of the one read whose task sent it: the other reads of the batch had no
/// origin, and after a batch answered key by key the sender was a miss whatever its own key's read found.
struct BatchedOutcomeTests {
    /// The lines `RepositoryOutcomes` notes for reads of `ids`, one at a time, through a repository over `source`.
    private func outcomesOneAtATime(_ ids: [Int], of source: EntryStore) async -> [String] {
        let recorder = RepositoryOutcomes()
        let api = source.plugins([recorder], name: "api")
        let users = SingleDataSourceRepository(api).plugins([recorder], name: "users")
        for id in ids { _ = try? await users.get(IdQuery(id), operation: .cacheSync) }
        return recorder.lines
    }

    /// The lines `RepositoryOutcomes` notes for reads of `ids` together, in one batch, through a repository over
    /// `source`.
    private func outcomesInOneBatch(_ ids: [Int], of source: EntryStore) async -> [String] {
        let clock = ManualClock()
        let recorder = RepositoryOutcomes()
        let batched = source.plugins([recorder], name: "api").batched(window: .milliseconds(5), clock: clock)
        let users = SingleDataSourceRepository(batched).plugins([recorder], name: "users")
        await readTogether(ids, through: batched, clock: clock) { id in
            _ = try await users.get(IdQuery(id), operation: .cacheSync)
        }
        return recorder.lines
    }

    @Test func everyReadOfABatchSaysTheBatchsSourceAnsweredIt() async throws {
        let source = store(["1", "2", "3"])

        let batched = await outcomesInOneBatch([1, 2, 3], of: source)
        let alone = await outcomesOneAtATime([1, 2, 3], of: source)

        #expect(batched == ["1: hit from api", "2: hit from api", "3: hit from api"])
        #expect(batched == alone)
    }

    /// A batch whose list read fails with not found for one key is answered key by key: each read is reported by
    /// its own key's read, as when it is read alone, not by the list read another key failed.
    @Test func readsOfABatchAnsweredKeyByKeyAreReportedAsReadsOfTheirOwnKeys() async throws {
        let source = store(["1", "3"])

        let batched = await outcomesInOneBatch([1, 2, 3], of: source)
        let alone = await outcomesOneAtATime([1, 2, 3], of: source)

        #expect(batched == ["1: hit from api", "2: miss from -", "3: hit from api"])
        #expect(batched == alone)
    }

    /// The misses of a cache read through a batching main are each main's answer, as the documentation's setup reads.
    @Test func cacheMissesReadInOneBatchEachSayMainAnsweredThem() async throws {
        let clock = ManualClock()
        let recorder = RepositoryOutcomes()
        let main = store(["1", "2"]).plugins([recorder], name: "api").batched(window: .milliseconds(5), clock: clock)
        let users = CacheRepository(main: main, cache: EntryStore()).plugins([recorder], name: "users")

        await readTogether([1, 2], through: main, clock: clock) { id in
            _ = try await users.get(IdQuery(id), operation: .cacheSync)
        }

        #expect(recorder.lines == ["1: miss from api", "2: miss from api"])
    }

    /// A batch opened by a stream's re-read ran as that re-read: the cache writes of the other reads it answered
    /// would not be announced to streams.
    @Test func aBatchOpenedByAStreamsReReadIsNotThatReRead() async throws {
        let clock = ManualClock()
        let probe = StreamRefreshProbe()
        let batched = store(["1", "2"]).plugins([probe]).batched(window: .milliseconds(5), clock: clock)

        // Given a stream's re-read that opens a batch, and another read that joins it
        async let streamRead = ObservationScope.$isStreamRefresh.withValue(true) {
            try await batched.get(IdQuery(1))
        }
        await poll { batched.pendingCount >= 1 }
        async let plainRead = batched.get(IdQuery(2))
        await poll { batched.pendingCount >= 2 }

        // When the batch is sent
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(5))
        let values = try await [streamRead, plainRead]

        // Then its one read of the source ran outside the stream's re-read
        #expect(values == ["1", "2"])
        #expect(probe.marks == [false])
    }
}
