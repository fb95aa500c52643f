import Foundation
import Strata

/// A data source of strings that uses every capability a source can have, and records how each was reached, so
/// a check can prove that a wrapper forwards them (see ``WrapperConformance``).
///
/// Its origin is `DataOrigin("probe")`; it reads without blocking; it announces its writes; it keeps metadata with
/// each entry; it answers a conditional read with ``Strata/ConditionalRead/notModified(_:)`` when the caller's entity
/// tag matches; it renews metadata in place.
public final class CapabilityProbe: DataSource {
    /// The origin the probe names: `probe`.
    public static let probeOrigin = DataOrigin("probe")

    private let state = Locked<[String: StoredEntry<String>]>([:])
    private let renewals = Locked<[String]>([])
    private let broadcaster = ChangeBroadcaster()

    /// Creates an empty probe.
    public init() {}

    /// `probe`.
    public var origin: DataOrigin { Self.probeOrigin }

    /// `true`: the probe reads from memory.
    public var readsWithoutBlocking: Bool { true }

    /// The probe's changes.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> { broadcaster.changes(forKey: key) }

    /// The entry stored under a key, with its metadata, as the probe holds it.
    ///
    /// - Parameter key: The key.
    public func storedEntry(forKey key: String) -> StoredEntry<String>? { state.withLock { $0[key] } }

    /// The keys whose metadata was renewed, in order.
    public var renewedKeys: [String] { renewals.withLock { $0 } }

    /// Stores an entry directly and announces it, as a write by another part of the app would.
    ///
    /// - Parameters:
    ///   - entry: The entry with its metadata.
    ///   - key: The key.
    public func store(_ entry: StoredEntry<String>, forKey key: String) {
        state.withLock { $0[key] = entry }
        broadcaster.publish(.put(key: key))
    }

    /// The value under a ``Strata/KeyedQuery``.
    public func get(_ query: any Query) async throws -> String { try await getEntry(query).value }

    /// The values under a ``Strata/MultiKeyedQuery``.
    public func getAll(_ query: any Query) async throws -> [String] { try await getAllEntries(query).map(\.value) }

    /// The entry under a ``Strata/KeyedQuery`` with its metadata.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<String> {
        let key = try Self.key(query)
        guard let entry = state.withLock({ $0[key] }) else { throw StrataError.miss(key: key) }
        return entry
    }

    /// The entries under a ``Strata/MultiKeyedQuery`` with their metadata.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<String>] {
        guard let query = query as? any MultiKeyedQuery else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        return try query.keys.map { key in
            guard let entry = state.withLock({ $0[key] }) else { throw StrataError.miss(key: key) }
            return entry
        }
    }

    /// *Not modified* when `metadata`'s entity tag is the stored entry's.
    public func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<String>
    {
        let entry = try await getEntry(query)
        if let eTag = metadata.eTag, eTag == entry.metadata.eTag { return .notModified(entry.metadata) }
        return .modified(entry)
    }

    /// Stores a value with no metadata.
    public func put(_ value: String, in query: any Query) async throws -> String {
        try await putEntry(StoredEntry(value: value, metadata: EntryMetadata()), in: query)
    }

    /// Stores values with no metadata.
    public func putAll(_ values: [String], in query: any Query) async throws -> [String] {
        try await putAllEntries(values.map { StoredEntry(value: $0, metadata: EntryMetadata()) }, in: query)
    }

    /// Stores a value with its metadata.
    public func putEntry(_ entry: StoredEntry<String>, in query: any Query) async throws -> String {
        store(entry, forKey: try Self.key(query))
        return entry.value
    }

    /// Stores values with their metadata.
    public func putAllEntries(_ entries: [StoredEntry<String>], in query: any Query) async throws -> [String] {
        guard let query = query as? any MultiKeyedQuery, query.keys.count == entries.count else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        for (key, entry) in zip(query.keys, entries) { store(entry, forKey: key) }
        return entries.map(\.value)
    }

    /// Replaces the metadata of a stored entry, keeping its value; a conditional read's renewal only while the entry
    /// is the version it confirmed (``Strata/EntryMetadata/renews(entryWithETag:lastModified:)``).
    public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        let key = try Self.key(query)
        let (held, renewed) = state.withLock { entries -> (Bool, Bool) in
            guard let stored = entries[key] else { return (false, false) }
            guard let renewal = metadata.renewal(of: stored.metadata) else { return (true, false) }
            entries[key]?.metadata = renewal
            return (true, true)
        }
        if renewed { renewals.withLock { $0.append(key) } }
        return held
    }

    /// Deletes the entries a keyed or multi-keyed query names.
    public func delete(_ query: any Query) async throws {
        let keys: [String]
        switch query {
        case let query as any KeyedQuery: keys = [query.key]
        case let query as any MultiKeyedQuery: keys = query.keys
        default: throw StrataError.queryNotSupported(query, by: Self.self)
        }
        state.withLock { entries in for key in keys { entries[key] = nil } }
        for key in keys { broadcaster.publish(.delete(key: key)) }
    }

    private static func key(_ query: any Query) throws -> String {
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        return query.key
    }
}
