import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// A key whose batches name the keys in the reverse of the order they arrived in, as an app's own query may (a
/// server that wants them sorted), and leave out the key "skipped".
private struct ReversingBatchKey: BatchableQuery, Hashable {
    let key: String

    static func batch(_ queries: [ReversingBatchKey]) -> any MultiKeyedQuery {
        IdsQuery(queries.map(\.key).filter { $0 != "skipped" }.reversed())
    }
}

/// A source that answers a list of keys with the value of each, in the order asked, and counts its list reads.
private final class EchoingDirectory: GetDataSource {
    private let reads = Locked(0)

    /// How many list reads it answered.
    var listReads: Int { reads.withLock { $0 } }

    func get(_ query: any Query) async throws -> String {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func getAll(_ query: any Query) async throws -> [String] {
        guard let query = query as? IdsQuery<String> else { throw StrataError.queryNotSupported(query, by: Self.self) }
        reads.withLock { $0 += 1 }
        return query.ids.map { "value of \($0)" }
    }
}

/// Before, a batch's answer went to its callers in the order they arrived, whatever the order of the keys the query
/// ``BatchableQuery/batch(_:)`` made: a query that sorted them handed each caller another key's value.
struct BatchQueryOrderTests {
    @Test func eachCallerGetsItsOwnKeysValueWhateverTheOrderTheBatchNamesThem() async throws {
        let (values, listReads) = try await readTogether(["a", "c", "b"])
        #expect(values == ["value of a", "value of c", "value of b"])
        #expect(listReads == 1)
    }

    @Test func aKeyTheBatchLeavesOutIsNotFoundForItsCallerAlone() async throws {
        let (values, listReads) = try await readTogether(["a", "skipped", "b"])
        #expect(values == ["value of a", "not found", "value of b"])
        #expect(listReads == 1)
    }

    /// The values read for `keys`, read together in one batch whose query names them in the reverse order ("not
    /// found" for a key not found), and the number of list reads that took.
    private func readTogether(_ keys: [String]) async throws -> (values: [String], listReads: Int) {
        let clock = ManualClock()
        let directory = EchoingDirectory()
        let source = directory.batched(window: .milliseconds(5), clock: clock)
        let reads = keys.map { key in
            Task { await Result { try await source.get(ReversingBatchKey(key: key)) } }
        }
        await poll { source.pendingCount >= keys.count }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(5))
        var values: [String] = []
        for read in reads {
            switch await read.value {
            case .success(let value): values.append(value)
            case .failure(let error):
                #expect(error.strataCode == .notFound)
                values.append("not found")
            }
        }
        return (values, directory.listReads)
    }
}
