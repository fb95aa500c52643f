import Foundation
import Strata
import StrataTesting

/// A key-value source of strings that keeps each entry's metadata, as a store that records it does, and logs the
/// writes it takes: what the repository's metadata rules are checked with.
///
/// A plain `put` stores the value as written at `now`; `putEntry` keeps the entry's metadata; `renewMetadata`
/// replaces it in place when `renews` is set (a conditional read's renewal, only the version it confirmed), and
/// throws `renewalError` when one is given. A list read names every key and throws *not found* for one that is
/// missing, as a store answers a list it never stored.
final class EntryStore: DataSource {
    let origin: DataOrigin
    let renews: Bool
    let renewalError: StrataError?
    let now: Date
    private let entries = Locked<[String: StoredEntry<String>]>([:])
    private let writeLog = Locked<[String]>([])

    init(
        _ contents: [String: StoredEntry<String>] = [:],
        origin: DataOrigin = .unspecified,
        renews: Bool = true,
        renewalError: StrataError? = nil,
        now: Date = Date(timeIntervalSince1970: 1_000)
    ) {
        self.origin = origin
        self.renews = renews
        self.renewalError = renewalError
        self.now = now
        entries.withLock { $0 = contents }
    }

    /// The entry stored under a key.
    func entry(_ key: String) -> StoredEntry<String>? { entries.withLock { $0[key] } }

    /// The writes taken, such as `putEntry 1` or `renew 1`, in order.
    var writes: [String] { writeLog.withLock { $0 } }

    func getEntry(_ query: any Query) async throws -> StoredEntry<String> {
        let key = try Self.key(query)
        guard let entry = entry(key) else { throw StrataError.notFound() }
        return entry
    }

    func getAllEntries(_ query: any Query) async throws -> [StoredEntry<String>] {
        guard let query = query as? any MultiKeyedQuery else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        return try query.keys.map { key in
            guard let entry = entry(key) else { throw StrataError.notFound() }
            return entry
        }
    }

    func get(_ query: any Query) async throws -> String { try await getEntry(query).value }

    func getAll(_ query: any Query) async throws -> [String] { try await getAllEntries(query).map(\.value) }

    func put(_ value: String, in query: any Query) async throws -> String {
        try await store(StoredEntry(value: value, storedAt: now), key: Self.key(query), as: "put")
    }

    func putAll(_ values: [String], in query: any Query) async throws -> [String] {
        try await putAllEntries(values.map { StoredEntry(value: $0, storedAt: now) }, in: query)
    }

    func putEntry(_ entry: StoredEntry<String>, in query: any Query) async throws -> String {
        try await store(entry, key: Self.key(query), as: "putEntry")
    }

    func putAllEntries(_ entries: [StoredEntry<String>], in query: any Query) async throws -> [String] {
        guard let query = query as? any MultiKeyedQuery, query.keys.count == entries.count else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        var values: [String] = []
        for (key, entry) in zip(query.keys, entries) { values.append(try await store(entry, key: key, as: "putEntry")) }
        return values
    }

    func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        let key = try Self.key(query)
        if let renewalError { throw renewalError }
        guard renews, let stored = entry(key) else { return false }
        guard let renewal = metadata.renewal(of: stored.metadata) else { return true }
        entries.withLock { $0[key]?.metadata = renewal }
        writeLog.withLock { $0.append("renew \(key)") }
        return true
    }

    func delete(_ query: any Query) async throws {
        let key = try Self.key(query)
        entries.withLock { $0[key] = nil }
        writeLog.withLock { $0.append("delete \(key)") }
    }

    private func store(_ entry: StoredEntry<String>, key: String, as write: String) async throws -> String {
        entries.withLock { $0[key] = entry }
        writeLog.withLock { $0.append("\(write) \(key)") }
        return entry.value
    }

    private static func key(_ query: any Query) throws -> String {
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        return query.key
    }
}

/// A validator that rejects an entry once the clock reaches its expiry.
func unexpired(on clock: ManualClock) -> ClosureValidator<String> {
    ClosureValidator { _, context in (context.metadata.expiresAt ?? .distantFuture) > clock.now() }
}
