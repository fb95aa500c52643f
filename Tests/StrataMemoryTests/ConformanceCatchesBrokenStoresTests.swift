import Foundation
import Strata
import StrataMemory
import StrataTesting
import Testing

/// The conformance suite against stores that break one rule each, as real stores of an app's own have: each fails the
/// suite at that rule. Before, every one of them passed (the rule was in the suite's doc, not in its checks).
struct ConformanceCatchesBrokenStoresTests {
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            (BrokenStore.Fault.sortsListAnswers, "IdsQuery answers in its own order"),
            (.deletesFirstKeyOnly, "IdsQuery answers in its own order"),
            (.pagesInsertionOrder, "pagination pages the key order"),
            (.restampsListEntries, "putEntry keeps the stored date, the expiry and the freshness date"),
            (.servesExpiredEntries, "a copy never outlives its original"),
            (.announcesBeforeWriting, "changes are announced after writes that happened, never for failed ones"),
        ]
    )
    func aStoreBreakingOneRuleFailsAtThatRule(fault: BrokenStore.Fault, rule: String) async throws {
        let suite = DataSourceConformance(
            capabilities: .keyValueStore,
            makeSource: { BrokenStore(fault) },
            makeValue: { $0 }
        )
        let failure = await #expect(throws: ConformanceFailure.self) { try await suite.run() }
        #expect(failure?.rule == rule, "\(String(describing: failure))")
    }

    @Test func theWrapperWithoutAFaultPasses() async throws {
        try await DataSourceConformance(
            capabilities: .keyValueStore,
            makeSource: { BrokenStore(nil) },
            makeValue: { $0 }
        ).run()
    }
}

/// A memory store behind a wrapper that forwards every call, but for one fault.
final class BrokenStore: DataSource, Sendable {
    typealias Value = Int

    enum Fault: Sendable, CustomStringConvertible {
        /// Answers an `IdsQuery` in the keys' order (`ORDER BY key`), not the query's.
        case sortsListAnswers
        /// Deletes the first key of an `IdsQuery` only.
        case deletesFirstKeyOnly
        /// Pages the order its keys were first written in.
        case pagesInsertionOrder
        /// Stamps every entry of `putAllEntries` with the time of the write.
        case restampsListEntries
        /// `getEntry` serves an entry past its expiry (only `get` checks it).
        case servesExpiredEntries
        /// Announces a put, then writes it once an observer has read the key.
        case announcesBeforeWriting

        var description: String {
            switch self {
            case .sortsListAnswers: "sorts list answers"
            case .deletesFirstKeyOnly: "deletes the first key only"
            case .pagesInsertionOrder: "pages the insertion order"
            case .restampsListEntries: "restamps list entries"
            case .servesExpiredEntries: "serves expired entries"
            case .announcesBeforeWriting: "announces before writing"
            }
        }
    }

    private struct State {
        var insertionOrder: [String] = []
        var expiredEntries: [String: StoredEntry<Int>] = [:]
        /// A put announced and not written yet, waiting for an observer's read of its key.
        var heldPut: CheckedContinuation<Void, Never>?
        var wasReadAfterAnnouncement = false
    }

    private let store = MemoryDataSource<Int>()
    private let fault: Fault?
    private let broadcaster = ChangeBroadcaster()
    private let state = Locked(State())

    init(_ fault: Fault?) {
        self.fault = fault
    }

    func changes(forKey key: String?) -> AsyncStream<DataChange> { broadcaster.changes(forKey: key) }

    func get(_ query: any Query) async throws -> Int {
        defer { if fault == .announcesBeforeWriting { releaseHeldPut() } }
        return try await store.get(query)
    }

    func getAll(_ query: any Query) async throws -> [Int] {
        try await getAllEntries(query).map(\.value)
    }

    func getEntry(_ query: any Query) async throws -> StoredEntry<Int> {
        do {
            return try await store.getEntry(query)
        } catch let error as StrataError where error.code == .notFound && fault == .servesExpiredEntries {
            guard let key = (query as? any KeyedQuery)?.key,
                let entry = state.withLock({ $0.expiredEntries[key] })
            else { throw error }
            return entry
        }
    }

    func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Int>] {
        switch (fault, query) {
        case (.sortsListAnswers?, let query as any MultiKeyedQuery):
            return try await store.getAllEntries(IdsQuery(query.keys.sorted()))
        case (.pagesInsertionOrder?, let query as PaginationOffsetLimitQuery):
            let order = state.withLock { $0.insertionOrder }
            guard !order.isEmpty else { return try await store.getAllEntries(query) }
            let keys = order.dropFirst(query.offset).prefix(query.limit)
            return keys.isEmpty ? [] : try await store.getAllEntries(IdsQuery(Array(keys)))
        default:
            return try await store.getAllEntries(query)
        }
    }

    func put(_ value: Int, in query: any Query) async throws -> Int {
        if fault == .announcesBeforeWriting, broadcaster.observerCount > 0 {
            state.withLock { $0.wasReadAfterAnnouncement = false }
            broadcaster.publishWrite(to: query)
            await waitForARead()
            return try await store.put(value, in: query)
        }
        return try await written(query) { try await store.put(value, in: query) }
    }

    func putAll(_ values: [Int], in query: any Query) async throws -> [Int] {
        try await written(query) { try await store.putAll(values, in: query) }
    }

    func putEntry(_ entry: StoredEntry<Int>, in query: any Query) async throws -> Int {
        if let key = (query as? any KeyedQuery)?.key {
            state.withLock { $0.expiredEntries[key] = entry.expiresAt.map { $0 < Date() } == true ? entry : nil }
        }
        return try await written(query) { try await store.putEntry(entry, in: query) }
    }

    func putAllEntries(_ entries: [StoredEntry<Int>], in query: any Query) async throws -> [Int] {
        var entries = entries
        if fault == .restampsListEntries {
            for index in entries.indices { entries[index].metadata.storedAt = Date() }
        }
        return try await written(query) { [entries] in try await store.putAllEntries(entries, in: query) }
    }

    func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        try await store.renewMetadata(metadata, in: query)
    }

    func delete(_ query: any Query) async throws {
        if fault == .deletesFirstKeyOnly, let query = query as? any MultiKeyedQuery, let first = query.keys.first {
            try await store.delete(KeyQuery(first))
        } else {
            try await store.delete(query)
        }
        state.withLock { state in
            if let key = (query as? any KeyedQuery)?.key {
                state.insertionOrder.removeAll { $0 == key }
            } else {
                state.insertionOrder.removeAll()
            }
        }
        broadcaster.publishDeletion(of: query)
    }

    /// Runs a write, then notes its keys and announces it, as a store that keeps the rule does.
    private func written<T>(_ query: any Query, _ write: () async throws -> T) async throws -> T {
        let result = try await write()
        let keys: [String] =
            switch query {
            case let query as any KeyedQuery: [query.key]
            case let query as any MultiKeyedQuery: query.keys
            default: []
            }
        state.withLock { state in
            for key in keys where !state.insertionOrder.contains(key) { state.insertionOrder.append(key) }
        }
        broadcaster.publishWrite(to: query)
        return result
    }

    private func waitForARead() async {
        await withCheckedContinuation { continuation in
            let isRead = state.withLock { state in
                if state.wasReadAfterAnnouncement { return true }
                state.heldPut = continuation
                return false
            }
            if isRead { continuation.resume() }
        }
    }

    private func releaseHeldPut() {
        let held = state.withLock { state in
            state.wasReadAfterAnnouncement = true
            defer { state.heldPut = nil }
            return state.heldPut
        }
        held?.resume()
    }
}
