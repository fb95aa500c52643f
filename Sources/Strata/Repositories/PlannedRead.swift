import struct Foundation.Date

/// What a planned read found: the entry, the source that answered, and whether it is a stale cached entry.
struct PlannedAnswer<Entry: Sendable>: Sendable {
    /// The value (or values) with metadata.
    let entry: Entry
    /// Main when main answered (a value read, or a stale entry it confirmed as current).
    let source: OperationPlan.Source
    /// Whether the entry is a cached one that failed validation, served as the plan allows.
    let isStale: Bool

    /// How the read ended: a stale value served, a hit when `first` — the source the plan asked first, `nil` when
    /// that source had already missed — answered, a miss otherwise.
    func outcome(first: OperationPlan.Source?) -> CallOutcome {
        if isStale { return .staleServed }
        return source == first ? .hit : .miss
    }
}

/// A planned read that failed: the error, and the source that gave it (streams report it by that origin).
struct PlannedReadFailure: Error {
    /// The error to report.
    let error: any Error
    /// The source whose call failed; main for a failed write-back too.
    let source: OperationPlan.Source
}

/// What main answered to a conditional read, as entries.
enum Revalidation<Entry: Sendable>: Sendable {
    /// Main has another value: its entry.
    case modified(Entry)
    /// The stale entry is current: its value with main's renewed metadata.
    case notModified(Entry)
}

/// How one method (`get` or `getAll`) reads and stores entries: what the read algorithm runs with.
///
/// `Entry` is a ``StoredEntry`` for `get` and an array of them for `getAll`; `Value` is what the method returns.
struct PlannedRead<Entry: Sendable, Value: Sendable>: Sendable {
    /// Whether this is a list read (for the coalescing key).
    let isGetAll: Bool
    /// The query of the call.
    let query: any Query
    /// Reads the cache's entry.
    let readCache: @Sendable () async throws -> Entry
    /// Reads main's entry.
    let readMain: @Sendable () async throws -> Entry
    /// Asks main whether a stale entry is current; `nil` when the entry has no validators or the method has no
    /// conditional read.
    let revalidate: @Sendable (Entry) async throws -> Revalidation<Entry>?
    /// Writes an entry from main into the cache, metadata included; returns what the cache stored.
    let store: @Sendable (Entry) async throws -> Entry
    /// Renews the cached entry's metadata with the renewed entry main confirmed (or writes it again when the cache
    /// cannot renew and still holds that version, or none), given the stale entry the conditional read was sent
    /// with: only that version is renewed.
    let renew: @Sendable (_ renewed: Entry, _ stale: Entry) async throws -> Entry
    /// The stale entry a *not valid* error carries (to revalidate, and to serve when the plan allows).
    let stale: @Sendable (StrataError) -> Entry?
    /// Whether a stale entry may be served in place of a current one: not when its metadata forbids it
    /// (``EntryMetadata/forbidsServingStale``).
    let servesStale: @Sendable (Entry) -> Bool
    /// Whether an entry may be stored (``EntryMetadata/isStorable``, every entry's for a list): one that may not is
    /// never handed to another read (``CacheRepository/sharedMainRead(_:telling:_:answeredByMain:isStorable:_:)``).
    let isStorable: @Sendable (Entry) -> Bool
    /// The entry's value, as the payload of ``StrataError/Code/cacheSyncFailed``.
    let value: @Sendable (Entry) -> Value
}

extension Array {
    /// The entries a source returned values for: each value with the metadata of the entry it was given, or no
    /// metadata when the source returned another number of values.
    ///
    /// - Parameter values: What the source returned for these entries.
    func keepingMetadata<Value: Sendable>(of values: [Value]) -> [StoredEntry<Value>]
    where Element == StoredEntry<Value> {
        guard values.count == count else { return values.map { StoredEntry(value: $0, metadata: EntryMetadata()) } }
        return zip(values, self).map { StoredEntry(value: $0, metadata: $1.metadata) }
    }
}
