import Foundation
import Strata

// The rules of a key-value store, each behind its `Capabilities` switch.
extension DataSourceConformance {
    /// Runs the key-value store rules the capabilities turn on.
    func checkKeyValueStoreRules() async throws {
        if capabilities.keyedLists { try await checkKeyedLists() }
        if capabilities.pagination { try await checkPagination() }
        if capabilities.listRule { try await checkListRule() }
        if capabilities.canonicalKeys { try await checkCanonicalKeys() }
        if capabilities.metadata { try await checkMetadata() }
        if capabilities.renewal { try await checkRenewal() }
        if capabilities.notifications { try await checkNotifications() }
        if capabilities.tags { try await checkTags() }
    }

    private func checkTags() async throws {
        try await check("tags written through a repository group entries; a TagQuery deletes a group") { source in
            let repository = CacheRepository(main: source, cache: source)
            let both: Set<String> = ["team:7", "user:1"]
            _ = try await repository.put(makeValue(1), in: KeyQuery("t1"), tags: both, operation: .cache)
            _ = try await repository.put(makeValue(2), in: KeyQuery("t2"), tags: ["team:7"], operation: .cache)
            _ = try await repository.put(makeValue(3), in: KeyQuery("t3"), tags: ["team:8"], operation: .cache)
            _ = try await repository.put(makeValue(4), in: KeyQuery("t4"), operation: .cache)
            try expectEqual(try await source.getEntry(KeyQuery("t1")).metadata.tags, both, "the tags written")
            try await repository.invalidate(tag: "team:7")
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery("t1")) }
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery("t2")) }
            try expectEqual(try await source.get(KeyQuery("t3")), makeValue(3), "an entry of another group")
            try expectEqual(try await source.get(KeyQuery("t4")), makeValue(4), "an entry of no group")
            // A write replaces the tags: written again without them, the entry leaves its group.
            _ = try await repository.put(makeValue(5), in: KeyQuery("t3"), operation: .cache)
            try await repository.invalidate(tag: "team:8")
            try expectEqual(try await source.get(KeyQuery("t3")), makeValue(5), "an entry rewritten without tags")
        }
    }

    private func checkKeyedLists() async throws {
        try await check("a keyed query answers getAll and putAll as a list of one") { source in
            _ = try await source.put(makeValue(1), in: KeyQuery("a"))
            try expectEqual(try await source.getAll(KeyQuery("a")), [makeValue(1)], "getAll(KeyQuery)")
            _ = try await source.putAll([makeValue(2)], in: KeyQuery("a"))
            try expectEqual(try await source.get(KeyQuery("a")), makeValue(2), "get after putAll(KeyQuery)")
            try await expectCode(.invalidArgument) {
                _ = try await source.putAll([makeValue(3), makeValue(4)], in: KeyQuery("a"))
            }
            try await expectCode(.notFound) { _ = try await source.getAll(KeyQuery("missing")) }
        }
    }

    private func checkPagination() async throws {
        try await check("pagination pages the key order") { source in
            // Written out of order, one read since: a store that pages its insertion or recency order fails.
            for index in [3, 0, 4, 1, 2] { _ = try await source.put(makeValue(index), in: KeyQuery("p\(index)")) }
            _ = try await source.get(KeyQuery("p4"))
            let page = try await source.getAll(PaginationOffsetLimitQuery(offset: 1, limit: 2))
            try expectEqual(page, [makeValue(1), makeValue(2)], "the second page of two")
            try expectEqual(
                try await source.getAll(AllObjectsQuery()),
                (0..<5).map(makeValue),
                "AllObjectsQuery in the key order"
            )
            let beyond = try await source.getAll(PaginationOffsetLimitQuery(offset: 10, limit: 2))
            try expectEqual(beyond.count, 0, "a page beyond the end")
        }
    }

    private func checkListRule() async throws {
        try await check("a listing never answered is notFound; a stored empty answer is served") { source in
            try await expectCode(.notFound) { _ = try await source.getAll(AllObjectsQuery()) }
            try await expectCode(.notFound) {
                _ = try await source.getAll(PaginationOffsetLimitQuery(offset: 0, limit: 10))
            }
            _ = try await source.putAll([], in: AllObjectsQuery())
            try expectEqual(try await source.getAll(AllObjectsQuery()).count, 0, "the stored empty list")
            let page = try await source.getAll(PaginationOffsetLimitQuery(offset: 0, limit: 10))
            try expectEqual(page.count, 0, "a page of the stored empty list")
            try await source.delete(AllObjectsQuery())
            try await expectCode(.notFound) { _ = try await source.getAll(AllObjectsQuery()) }
        }
    }

    private func checkCanonicalKeys() async throws {
        try await check("a key written in NFC is read in NFD") { source in
            let composed = "caf\u{E9}"
            let decomposed = "cafe\u{301}"
            _ = try await source.put(makeValue(1), in: KeyQuery(composed))
            try expectEqual(try await source.get(KeyQuery(decomposed)), makeValue(1), "NFD read of an NFC write")
            _ = try await source.put(makeValue(2), in: KeyQuery(decomposed))
            try expectEqual(try await source.get(KeyQuery(composed)), makeValue(2), "NFC read of an NFD write")
            try await source.delete(KeyQuery(decomposed))
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery(composed)) }
        }
    }

    private func checkMetadata() async throws {
        // Dates far from any test clock's now: a stored date in the past, an expiry years ahead.
        let storedAt = Date(timeIntervalSince1970: 1_600_000_000)
        let expiresAt = Date().addingTimeInterval(20 * 365 * 86_400)
        // A freshness date already past: the store keeps serving the entry all the same.
        let freshUntil = storedAt.addingTimeInterval(60)
        let metadata = EntryMetadata(storedAt: storedAt, expiresAt: expiresAt, freshUntil: freshUntil)
        try await check("putEntry keeps the stored date, the expiry and the freshness date") { source in
            let entry = StoredEntry(value: makeValue(1), metadata: metadata)
            _ = try await source.putEntry(entry, in: KeyQuery("m"))
            let read = try await source.getEntry(KeyQuery("m"))
            try expectEqual(read.value, makeValue(1), "the value of getEntry")
            try expectClose(read.storedAt, storedAt, "storedAt")
            try expectClose(read.expiresAt, expiresAt, "expiresAt")
            try expectClose(read.metadata.freshUntil, freshUntil, "freshUntil")
            let entries = [StoredEntry(value: makeValue(2), metadata: metadata)]
            _ = try await source.putAllEntries(entries, in: IdsQuery(["n"]))
            let all = try await source.getAllEntries(IdsQuery(["n"]))
            try expectEqual(all.map(\.value), [makeValue(2)], "the values of getAllEntries")
            try expectClose(all.first?.storedAt, storedAt, "storedAt of putAllEntries")
            try expectClose(all.first?.expiresAt, expiresAt, "expiresAt of putAllEntries")
            try expectClose(all.first?.metadata.freshUntil, freshUntil, "freshUntil of putAllEntries")
        }
        try await check("an entry that must never be served stale is served fresh, and never stale") { source in
            let strict = EntryMetadata(
                storedAt: storedAt,
                expiresAt: expiresAt,
                freshUntil: freshUntil,
                forbidsServingStale: true
            )
            _ = try await source.putEntry(StoredEntry(value: makeValue(1), metadata: strict), in: KeyQuery("s"))
            try await expectNeverServedStale(source, KeyQuery("s"), "putEntry")
            let until = Date().addingTimeInterval(365 * 86_400)
            let fresh = EntryMetadata(freshUntil: until, forbidsServingStale: true)
            _ = try await source.putEntry(StoredEntry(value: makeValue(2), metadata: fresh), in: KeyQuery("f"))
            let read = try await source.getEntry(KeyQuery("f"))
            try expectEqual(read.value, makeValue(2), "a fresh entry that must never be served stale")
            let expiresInTime = read.expiresAt.map { $0.timeIntervalSince(until) < 0.001 } ?? false
            let keepsRule = read.metadata.forbidsServingStale || expiresInTime
            try expectEqual(keepsRule, true, "the rule kept, or an expiry at the freshness date at the latest")
        }
        try await check("a copy never outlives its original") { source in
            let expired = expiredEntry(storedAt: storedAt)
            _ = try await source.putEntry(expired, in: KeyQuery("old"))
            // Every read: a repository's plan, its streams and `getResponse` read entries.
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery("old")) }
            try await expectCode(.notFound) { _ = try await source.getEntry(KeyQuery("old")) }
            if capabilities.multiKeyQueries {
                try await expectCode(.notFound) { _ = try await source.getAllEntries(IdsQuery(["old"])) }
            }
        }
        try await check("a date that is not a finite time is refused (invalidArgument), nothing stored") { source in
            for metadata in Self.nonFiniteMetadata {
                try await expectCode(.invalidArgument) {
                    _ = try await source.putEntry(
                        StoredEntry(value: makeValue(1), metadata: metadata),
                        in: KeyQuery("n")
                    )
                }
                try await expectCode(.notFound) { _ = try await source.get(KeyQuery("n")) }
            }
        }
    }

    /// Metadata with one date that is not a finite time: an expiry of +infinity, a NaN stored date, a freshness
    /// date of -infinity.
    private static var nonFiniteMetadata: [EntryMetadata] {
        [
            EntryMetadata(expiresAt: Date(timeIntervalSince1970: .infinity)),
            EntryMetadata(storedAt: Date(timeIntervalSince1970: .nan)),
            EntryMetadata(freshUntil: Date(timeIntervalSince1970: -.infinity)),
        ]
    }

    private func checkRenewal() async throws {
        let storedAt = Date(timeIntervalSince1970: 1_600_000_000)
        let expiresAt = Date().addingTimeInterval(20 * 365 * 86_400)
        let freshUntil = storedAt.addingTimeInterval(60)
        try await check("renewMetadata renews without rewriting the value") { source in
            let fresh = EntryMetadata(freshUntil: storedAt)
            _ = try await source.putEntry(StoredEntry(value: makeValue(1), metadata: fresh), in: KeyQuery("r"))
            let renewed = EntryMetadata(
                storedAt: storedAt,
                expiresAt: expiresAt,
                freshUntil: freshUntil,
                eTag: "\"v2\""
            )
            try expectEqual(try await source.renewMetadata(renewed, in: KeyQuery("r")), true, "renewMetadata")
            let read = try await source.getEntry(KeyQuery("r"))
            try expectEqual(read.value, makeValue(1), "the value after a renewal")
            try expectClose(read.storedAt, storedAt, "storedAt after a renewal")
            try expectClose(read.expiresAt, expiresAt, "expiresAt after a renewal")
            try expectClose(read.metadata.freshUntil, freshUntil, "freshUntil after a renewal")
            if let eTag = read.metadata.eTag { try expectEqual(eTag, "\"v2\"", "eTag after a renewal") }
            try expectEqual(
                try await source.renewMetadata(renewed, in: KeyQuery("missing")),
                false,
                "renewMetadata of a missing key"
            )
        }
        try await check("a conditional read's renewal renews only the version it confirmed") { source in
            let stored = EntryMetadata(
                freshUntil: storedAt,
                eTag: "\"v2\"",
                lastModified: "Tue, 15 Nov 1994 08:12:31 GMT"
            )
            _ = try await source.putEntry(StoredEntry(value: makeValue(2), metadata: stored), in: KeyQuery("c"))
            // The validators as the store reports them: what a conditional read of the entry is sent with.
            let sent = try await source.getEntry(KeyQuery("c")).metadata
            let renewal = EntryMetadata(storedAt: storedAt, expiresAt: expiresAt, freshUntil: freshUntil)
            let older = renewal.confirming(EntryMetadata(eTag: "\"v1\""))
            try expectEqual(try await source.renewMetadata(older, in: KeyQuery("c")), true, "renewing another version")
            let kept = try await source.getEntry(KeyQuery("c"))
            try expectEqual(kept.value, makeValue(2), "the value after another version's renewal")
            try expectClose(kept.metadata.freshUntil, storedAt, "freshUntil after another version's renewal")
            try expectEqual(
                try await source.renewMetadata(renewal.confirming(sent), in: KeyQuery("c")),
                true,
                "renewing the stored version"
            )
            try expectClose(try await source.getEntry(KeyQuery("c")).metadata.freshUntil, freshUntil, "freshUntil")
        }
        try await check("renewMetadata keeps the rule never to serve an entry stale") { source in
            _ = try await source.putEntry(
                StoredEntry(value: makeValue(1), metadata: EntryMetadata()),
                in: KeyQuery("s")
            )
            let strict = EntryMetadata(
                storedAt: storedAt,
                expiresAt: expiresAt,
                freshUntil: freshUntil,
                forbidsServingStale: true
            )
            try expectEqual(try await source.renewMetadata(strict, in: KeyQuery("s")), true, "renewMetadata")
            try await expectNeverServedStale(source, KeyQuery("s"), "renewMetadata")
        }
        try await check("renewMetadata refuses a date that is not a finite time, the entry unchanged") { source in
            _ = try await source.putEntry(
                StoredEntry(value: makeValue(1), metadata: EntryMetadata()),
                in: KeyQuery("f")
            )
            for metadata in Self.nonFiniteMetadata {
                try await expectCode(.invalidArgument) {
                    _ = try await source.renewMetadata(metadata, in: KeyQuery("f"))
                }
            }
            let read = try await source.getEntry(KeyQuery("f"))
            // Compared as a Bool: describing a `Date` that is not finite traps in Foundation.
            let dates = [read.storedAt, read.expiresAt].compactMap { $0?.timeIntervalSince1970 }
            let unchanged = read.metadata.freshUntil == nil && dates.allSatisfy(\.isFinite)
            try expectEqual(unchanged, true, "no freshness date and finite dates after refused renewals")
        }
        try await check("renewMetadata brings an expired entry back") { source in
            let expired = expiredEntry(storedAt: storedAt)
            _ = try await source.putEntry(expired, in: KeyQuery("e"))
            let renewed = EntryMetadata(storedAt: storedAt, expiresAt: expiresAt)
            try expectEqual(try await source.renewMetadata(renewed, in: KeyQuery("e")), true, "renewMetadata")
            try expectEqual(try await source.get(KeyQuery("e")), makeValue(1), "the renewed value")
        }
    }

    /// Checks that the entry under `query`, whose freshness date has passed and whose metadata forbids serving it
    /// stale, is either a miss (a store that cannot keep the rule expires it at its freshness date) or served with
    /// the rule, which a repository then obeys.
    private func expectNeverServedStale(_ source: Source, _ query: KeyQuery, _ write: String) async throws {
        let read: StoredEntry<Source.Value>
        do {
            read = try await source.getEntry(query)
        } catch let error as StrataError where error.code == .notFound {
            return
        }
        try expectEqual(read.metadata.forbidsServingStale, true, "the rule never to serve stale, after \(write)")
    }

    /// An entry stored at `storedAt` that expired a second later.
    private func expiredEntry(storedAt: Date) -> StoredEntry<Source.Value> {
        StoredEntry(value: makeValue(1), storedAt: storedAt, expiresAt: storedAt.addingTimeInterval(1))
    }

    private func checkNotifications() async throws {
        try await check("changes are announced after writes that happened, never for failed ones") { source in
            let log = ChangeLog()
            // What the key held when its first put and its delete were heard: a change announced before its write
            // (a store that announces, then awaits its disk) has an observer that reads again read the old state.
            let readsAsHeard = Locked<[String]>([])
            let stream = source.changes(forKey: nil)
            let consumer = Task {
                for await change in stream {
                    if change == .put(key: "a") || change == .delete(key: "a") {
                        let read = try? await source.get(KeyQuery("a"))
                        readsAsHeard.withLock { $0.append(read.map { "\($0)" } ?? "nothing") }
                    }
                    log.append(change)
                }
            }
            defer { consumer.cancel() }
            _ = try await source.put(makeValue(1), in: KeyQuery("a"))
            try await log.expect([.put(key: "a")], "after a put")
            try expectEqual(readsAsHeard.withLock { $0 }, ["\(makeValue(1))"], "the key read as its put was heard")
            // Failed writes: an empty key, counts that differ, an unknown query.
            _ = try? await source.put(makeValue(2), in: KeyQuery(""))
            _ = try? await source.putAll([makeValue(2)], in: IdsQuery(["b", "c"]))
            _ = try? await source.put(makeValue(2), in: UnknownQuery())
            _ = try? await source.renewMetadata(EntryMetadata(expiresAt: Date.distantFuture), in: KeyQuery("a"))
            try await log.expectNothingNew(after: [.put(key: "a")], "after failed writes and a renewal")
            // A stream of every key keeps its newest 64 changes: none of these few is dropped, so each is heard as it
            // happened, never as `invalidateAll` in its place.
            var seen = log.count
            _ = try await source.putAll([makeValue(3), makeValue(4)], in: IdsQuery(["b", "c"]))
            try await log.expect([.put(key: "b"), .put(key: "c")], since: seen, "after a putAll")
            seen = log.count
            try await source.delete(KeyQuery("a"))
            try await log.expect([.delete(key: "a")], since: seen, "after a delete")
            try expectEqual(readsAsHeard.withLock { $0.last }, "nothing", "the key read as its delete was heard")
        }
    }
}

/// The changes a conformance check has seen.
private final class ChangeLog: Sendable {
    private let changes = Locked<[DataChange]>([])

    func append(_ change: DataChange) { changes.withLock { $0.append(change) } }

    /// How many changes the log holds.
    var count: Int { changes.withLock { $0.count } }

    /// Waits until the changes seen after the first `start` are `expected`; fails at once when they cannot become it, and
    /// when they have not after 4,000 looks 5 ms apart (20 seconds at least: a guard against a change never announced,
    /// not a timing — a change reaches the log when its stream's consumer runs, which a loaded machine, or a store whose
    /// changes come back from a server, may delay by seconds).
    func expect(_ expected: [DataChange], since start: Int = 0, _ what: String) async throws {
        for _ in 0..<4_000 {
            let seen = changes.withLock { Array($0.dropFirst(start)) }
            if seen == expected { return }
            guard expected.starts(with: seen) else { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let seen = changes.withLock { Array($0.dropFirst(start)) }
        throw ConformanceFailure(rule: what, message: "\(what): expected \(expected), saw \(seen)")
    }

    /// Waits a moment and checks that the log is still `expected`.
    func expectNothingNew(after expected: [DataChange], _ what: String) async throws {
        try await Task.sleep(for: .milliseconds(50))
        let seen = changes.withLock { $0 }
        guard seen == expected else {
            throw ConformanceFailure(rule: what, message: "\(what): expected \(expected), saw \(seen)")
        }
    }
}

/// Dates agree to the millisecond (a store may keep seconds as a `Double`).
private func expectClose(_ actual: Date?, _ expected: Date, _ what: String) throws {
    guard let actual, abs(actual.timeIntervalSince(expected)) < 0.001 else {
        throw ConformanceFailure(
            rule: what,
            message: "\(what): expected \(expected), got \(String(describing: actual))"
        )
    }
}
