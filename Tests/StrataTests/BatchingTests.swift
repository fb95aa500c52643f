import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// A directory of members with ids below 100 that answers a list of ids with the members it has, records each
/// list read, and fails a list that holds the poisoned id.
private final class MemberDirectory: GetDataSource {
    struct Member: Identifiable, Hashable, Sendable {
        let id: Int
    }

    static let poisoned = 666
    private let lists = Locked<[[Int]]>([])

    /// The ids of each list read, in order.
    var listReads: [[Int]] { lists.withLock { $0 } }

    func get(_ query: any Query) async throws -> Member {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func getAll(_ query: any Query) async throws -> [Member] {
        guard let query = query as? IdsQuery<Int> else { throw StrataError.queryNotSupported(query, by: Self.self) }
        lists.withLock { $0.append(query.ids) }
        if query.ids.contains(Self.poisoned) { throw StrataError(.network, "poisoned") }
        return query.ids.filter { $0 < 100 }.map(Member.init(id:))
    }
}

/// A directory whose list read fails whole, with `code`, when it holds the damaged id 13 (a value that no longer
/// decodes, a key the store refuses), and answers every other id below 100.
private final class DamagedDirectory: GetDataSource {
    let code: StrataError.Code
    private let reads = Locked(0)

    init(failingWith code: StrataError.Code) { self.code = code }

    /// How many list reads it answered or failed.
    var listReads: Int { reads.withLock { $0 } }

    func get(_ query: any Query) async throws -> MemberDirectory.Member {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func getAll(_ query: any Query) async throws -> [MemberDirectory.Member] {
        guard let query = query as? IdsQuery<Int> else { throw StrataError.queryNotSupported(query, by: Self.self) }
        reads.withLock { $0 += 1 }
        if query.ids.contains(13) { throw StrataError(code, "entry 13") }
        return query.ids.filter { $0 < 100 }.map(MemberDirectory.Member.init(id:))
    }
}

/// A directory that answers a list of ids with every member, in descending order of id.
private struct SortingDirectory: GetDataSource {
    func get(_ query: any Query) async throws -> MemberDirectory.Member {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func getAll(_ query: any Query) async throws -> [MemberDirectory.Member] {
        guard let query = query as? IdsQuery<Int> else { throw StrataError.queryNotSupported(query, by: Self.self) }
        return query.ids.sorted(by: >).map(MemberDirectory.Member.init(id:))
    }
}

/// Reads `ids` concurrently through `source`, once `source` holds them all in a batch, and sends the batch.
private func readTogether<Source: GetDataSource>(
    _ ids: [Int],
    from source: BatchingDataSource<Source>,
    clock: ManualClock
) async -> [Int: Result<Source.Value, StrataError>] {
    await withTaskGroup(of: (Int, Result<Source.Value, StrataError>).self) { group in
        for id in ids {
            group.addTask {
                do {
                    return (id, .success(try await source.get(IdQuery(id))))
                } catch {
                    return (id, .failure(error as? StrataError ?? StrataError(.io, "\(error)")))
                }
            }
        }
        // A batch left open waits for its window: advance the clock once that wait has begun, not before
        let leftOpen = ids.count % source.maxBatchSize
        await poll { source.pendingCount >= leftOpen }
        if leftOpen > 0 { await clock.waitForSleepers(1) }
        clock.advance(by: .milliseconds(5))
        return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
    }
}

/// Reads 1, 2 and 3 together through `source`, a store holding "one" for 1 and "three" for 3, expects those two
/// answered, and returns the error 2 failed with (`nil`, recording an issue, when 2 was answered).
private func errorOfTwo<Source: GetDataSource>(
    readTogetherWithOneAndThree source: BatchingDataSource<Source>,
    clock: ManualClock
) async -> StrataError? where Source.Value == String {
    let results = await readTogether([1, 2, 3], from: source, clock: clock)
    #expect((try? results[1]?.get()) == "one")
    #expect((try? results[3]?.get()) == "three")
    guard case .failure(let error) = results[2] else {
        Issue.record("2 was answered: \(String(describing: results[2]))")
        return nil
    }
    return error
}

struct BatchingTests {
    @Test func readsArrivingTogetherReachTheSourceAsOneListRead() async throws {
        let clock = ManualClock()
        let directory = MemberDirectory()
        let source = directory.batched(maxBatchSize: 100, window: .milliseconds(5), clock: clock)

        let results = await readTogether([3, 1, 2], from: source, clock: clock)

        #expect(directory.listReads.count == 1)
        #expect(directory.listReads.first?.sorted() == [1, 2, 3])
        #expect(results.mapValues { try? $0.get().id } == [1: 1, 2: 2, 3: 3])
    }

    /// A window of the largest duration made a deadline that the system clock's sleep could not reach without
    /// overflowing (it trapped); the batch waits the longest wait instead.
    @Test func aWindowOfTheLargestDurationIsCutToTheLongestWait() async throws {
        let clock = ManualClock()
        let directory = MemberDirectory()
        let source = directory.batched(window: .seconds(Int64.max), clock: clock)

        let read = Task { try await source.get(IdQuery(1)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(Int64.max))

        #expect(try await read.value.id == 1)
        #expect(clock.sleepCalls.count == 1)
        // The manual clock measures the wait through dates, to a microsecond or so
        #expect(clock.sleepCalls.allSatisfy { $0 <= .longestWait + .milliseconds(1) })
    }

    @Test func aKeyTheSourceDoesNotAnswerFailsOnlyItsCaller() async throws {
        let clock = ManualClock()
        let directory = MemberDirectory()
        let source = directory.batched(window: .milliseconds(5), clock: clock)

        let results = await readTogether([1, 200, 2], from: source, clock: clock)

        #expect(directory.listReads.count == 1)
        #expect((try? results[1]?.get())?.id == 1)
        #expect((try? results[2]?.get())?.id == 2)
        #expect(results[200].flatMap { try? $0.get() } == nil)
        if case .failure(let error) = results[200] { #expect(error.code == .notFound) }
    }

    @Test func aStoreListReadFailingOnAMissingKeyFailsOnlyThatKeysCaller() async throws {
        // Given a store whose list read throws not found for the first key it lacks, holding 1 and 3 but not 2
        let clock = ManualClock()
        let store = EntryStore([
            "1": StoredEntry(value: "one", storedAt: nil), "3": StoredEntry(value: "three", storedAt: nil),
        ])
        let source = store.batched(window: .milliseconds(5), clock: clock)

        // When 1, 2 and 3 are read together, then 1 and 3 get their values and only 2 is not found
        let error = await errorOfTwo(readTogetherWithOneAndThree: source, clock: clock)

        #expect(error?.code == .notFound)
    }

    @Test func aPartialAnswerOfTheBatchAnswersEachKeyWithItsOwnEntry() async throws {
        // Given a repository tier whose list read of ids it lacks in part throws not found with the values found
        let clock = ManualClock()
        let directory = MemberDirectory()
        let tier = CacheRepository(main: directory, cache: ScriptedDataSource<MemberDirectory.Member>())
            .asDataSource(operation: .cacheSync)
        let source = tier.batched(window: .milliseconds(5), clock: clock)

        // When 1, 200 and 3 are read together
        let results = await readTogether([1, 200, 3], from: source, clock: clock)

        // Then 1 and 3 are answered (from the tier's cache, as the batch is read again in halves), only 200 is not
        // found, and main was asked for 200 alone after the whole batch (once per half that holds it)
        #expect((try? results[1]?.get())?.id == 1)
        #expect((try? results[3]?.get())?.id == 3)
        guard case .failure(let error) = results[200] else {
            Issue.record("200 was answered: \(String(describing: results[200]))")
            return
        }
        #expect(error.code == .notFound)
        let reads = directory.listReads.map { $0.sorted() }
        #expect(reads.first == [1, 3, 200])
        #expect(reads.dropFirst().allSatisfy { $0 == [200] } && reads.count <= 3, "\(reads)")
    }

    /// An error about one entry (a value that no longer decodes, a key the store refuses, a value past its read
    /// limit) fails only that key's callers: the batch is read again key by key. Before, only *not found* did so, and
    /// one damaged entry failed every caller that happened to share its batch.
    /// Before, a batch whose list read failed for one entry was read again key by key: 99 callers, one of them with
    /// an id the source fails on (a caller's to choose in a public route), cost 100 reads at once, as many as without
    /// batching. Halving finds the key in about 2·log₂ 99 reads.
    @Test(arguments: [StrataError.Code.notFound, .dataSerialization])
    func oneBadKeyInALargeBatchCostsAFewReadsNotOnePerKey(code: StrataError.Code) async throws {
        let clock = ManualClock()
        let directory = DamagedDirectory(failingWith: code)
        let source = directory.batched(maxBatchSize: 100, window: .milliseconds(5), clock: clock)

        let results = await readTogether(Array(1...99), from: source, clock: clock)

        #expect(results.count == 99)
        #expect(results.filter { (try? $0.value.get()) != nil }.count == 98)
        #expect(results[13].map { (try? $0.get()) == nil } == true)
        #expect(directory.listReads <= 15, "\(directory.listReads) list reads")
    }

    @Test(arguments: [StrataError.Code.dataSerialization, .invalidArgument, .tooLarge])
    func anErrorAboutOneEntryFailsOnlyItsCallers(code: StrataError.Code) async throws {
        let clock = ManualClock()
        let source = DamagedDirectory(failingWith: code).batched(window: .milliseconds(5), clock: clock)

        let results = await readTogether([1, 13, 2], from: source, clock: clock)

        #expect((try? results[1]?.get())?.id == 1)
        #expect((try? results[2]?.get())?.id == 2)
        guard case .failure(let error) = results[13] else {
            Issue.record("13 was answered: \(String(describing: results[13]))")
            return
        }
        #expect(error.code == code)
    }

    /// A validated source fails a whole list read with *not valid* when one entry is too old, carrying every entry.
    /// Before, every caller of the batch failed with that error, each carrying the others' values, and even the expired
    /// key's caller got a list as its payload: no stale entry for a repository to serve or revalidate.
    @Test func anExpiredEntryFailsOnlyItsCallersWithItsOwnStaleEntry() async throws {
        let clock = ManualClock()
        let now = clock.now()
        let store = EntryStore([
            "1": StoredEntry(value: "one", storedAt: now),
            "2": StoredEntry(value: "two", storedAt: now.addingTimeInterval(-120)),
            "3": StoredEntry(value: "three", storedAt: now),
        ])
        let source = store.validated(by: .maxAge(.seconds(60), clock: clock))
            .batched(window: .milliseconds(5), clock: clock)

        let error = await errorOfTwo(readTogetherWithOneAndThree: source, clock: clock)

        #expect(error?.code == .notValid)
        #expect(error?.staleEntry(as: String.self)?.value == "two")
        #expect(error?.value(as: String.self) == "two")
    }

    /// A source that answers a list of ids in its own order (sorted, descending here), as many as asked: each value
    /// goes to its own key. Before, an answer of the right length was matched by position alone, and every caller got
    /// another caller's member (and a cache in front stored each under another key).
    @Test func anAnswerInAnotherOrderGivesEachCallerItsOwnValue() async throws {
        let clock = ManualClock()
        let source = SortingDirectory().batched(window: .milliseconds(5), clock: clock)

        let results = await readTogether([2, 3, 1], from: source, clock: clock)

        #expect(results.mapValues { try? $0.get().id } == [1: 1, 2: 2, 3: 3])
    }

    @Test func aFailedBatchFailsItsCallersAndNoOthers() async throws {
        // Given batches of two
        let clock = ManualClock()
        let directory = MemberDirectory()
        let source = directory.batched(maxBatchSize: 2, window: .milliseconds(5), clock: clock)

        // When the poisoned id and one other fill the first batch, and two more the second
        let first = Task { await readTogether([MemberDirectory.poisoned, 1], from: source, clock: clock) }
        let firstResults = await first.value
        let secondResults = await readTogether([2, 3], from: source, clock: clock)

        // Then both callers of the first batch got its error, and the second batch succeeded
        #expect(firstResults.values.allSatisfy { (try? $0.get()) == nil })
        #expect(secondResults.mapValues { try? $0.get().id } == [2: 2, 3: 3])
        #expect(directory.listReads.count == 2)
    }

    @Test func callersOfOneKeyShareItsSlot() async throws {
        let clock = ManualClock()
        let directory = MemberDirectory()
        let source = directory.batched(window: .milliseconds(5), clock: clock)

        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<5 { group.addTask { try await source.get(IdQuery(7)).id } }
            await poll { source.pendingCount >= 5 }
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(5))
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(values == [7, 7, 7, 7, 7])
        #expect(directory.listReads == [[7]])
    }

    @Test func queriesThatDoNotBatchGoStraightToTheSource() async throws {
        let directory = MemberDirectory()
        let source = directory.batched()

        let members = try await source.getAll(IdsQuery([4, 5]))

        #expect(members.map(\.id) == [4, 5])
        #expect(directory.listReads == [[4, 5]])
    }
}
