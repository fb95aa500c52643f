/// A source that writes values.
///
/// A store that records metadata also implements ``putEntry(_:in:)`` (so a value copied from another tier
/// keeps its stored date and expiry) and ``renewMetadata(_:in:)`` (so a revalidated entry is renewed without
/// rewriting its value). Both have defaults.
public protocol PutDataSource<Value>: DataSourceCapabilities {
    /// The type of the values the source holds.
    associatedtype Value: Sendable

    /// Stores a value where the query says and returns what was stored.
    ///
    /// A source may return a value that differs from its argument (a server that assigns an id, for
    /// example); repositories pass that returned value on when they sync.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - query: Where to store it.
    /// - Returns: The stored value.
    func put(_ value: Value, in query: any Query) async throws -> Value

    /// Stores several values where the query says and returns what was stored.
    ///
    /// - Parameters:
    ///   - values: The values to store; for an ``IdsQuery`` one per identifier, in order.
    ///   - query: Where to store them.
    /// - Returns: The stored values.
    func putAll(_ values: [Value], in query: any Query) async throws -> [Value]

    /// Stores a value with the metadata it had where it came from, and returns what was stored.
    ///
    /// A store that records metadata keeps the entry's stored date and expiry (and validators), so a copy
    /// never outlives its original. The default stores the value with ``put(_:in:)``: as if written now.
    ///
    /// - Parameters:
    ///   - entry: The value and its metadata.
    ///   - query: Where to store it.
    /// - Returns: The stored value.
    func putEntry(_ entry: StoredEntry<Value>, in query: any Query) async throws -> Value

    /// Stores several values with their metadata, as ``putEntry(_:in:)`` does for one.
    ///
    /// The default stores the values with ``putAll(_:in:)``.
    ///
    /// - Parameters:
    ///   - entries: The values and their metadata; for an ``IdsQuery`` one per identifier, in order.
    ///   - query: Where to store them.
    /// - Returns: The stored values.
    func putAllEntries(_ entries: [StoredEntry<Value>], in query: any Query) async throws -> [Value]

    /// Replaces the metadata of the entry the query names without rewriting its value; returns whether the
    /// source could.
    ///
    /// What a cache does after a conditional read answered *not modified*. A renewal after *not modified* renews
    /// only the version the conditional read named: a source that renews checks
    /// ``EntryMetadata/renews(entryWithETag:lastModified:)`` with the entry it holds, in the same turn as its write,
    /// and leaves another version as it is. The default returns `false`, and ``CacheRepository`` writes the value
    /// again with ``putEntry(_:in:)`` only when the entry the cache then shows (`getEntry`, fresh or stale) is that
    /// version, or there is none; over another version it writes nothing, and answers the confirmed value unstored.
    /// There is no conditional write to make that check and write one step: a write made in the source directly,
    /// past the repository, between the two is not seen, so a cache that may be written so renews.
    ///
    /// - Parameters:
    ///   - metadata: The new metadata (stored date, expiry, validators).
    ///   - query: Which entry to renew.
    /// - Returns: `true` when the entry was renewed, or left as it is because it is another version than the one
    ///   `metadata` renews; `false` when the source cannot renew (or holds no entry).
    func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool
}

// MARK: - Defaults

extension PutDataSource {
    /// Stores the value with ``put(_:in:)``; the metadata is not kept.
    public func putEntry(_ entry: StoredEntry<Value>, in query: any Query) async throws -> Value {
        try await put(entry.value, in: query)
    }

    /// Stores the values with ``putAll(_:in:)``; the metadata is not kept.
    public func putAllEntries(_ entries: [StoredEntry<Value>], in query: any Query) async throws -> [Value] {
        try await putAll(entries.map { $0.value }, in: query)
    }

    /// Returns `false`: the source cannot renew an entry without rewriting it.
    public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool { false }
}

// MARK: - Tags

extension PutDataSource {
    /// Stores the value with tags (``EntryMetadata/tags``), so that `delete(TagQuery(tag))` removes it with the other
    /// entries of its group.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - query: Where to store it.
    ///   - tags: The groups it belongs to, such as `user:42`.
    /// - Returns: The stored value.
    /// - Throws: As ``putEntry(_:in:)``.
    public func put(_ value: Value, in query: any Query, tags: Set<String>) async throws -> Value {
        try await putEntry(StoredEntry(value: value, metadata: EntryMetadata(tags: tags)), in: query)
    }
}
