/// The contract of Strata's key-value stores (the memory, file and JSON-file stores): a
/// synchronous API over keys, on which one query dispatcher builds every ``DataSource`` method.
///
/// A type that implements these few synchronous requirements conforms to ``DataSource`` for free: the protocol
/// extension answers `get`, `getAll`, `getEntry`, `getAllEntries`, `put`, `putAll`, `putEntry`,
/// `putAllEntries`, `renewMetadata` and `delete` for every query kind, the same way for every store.
///
/// ## Queries
///
/// - ``KeyedQuery`` (``KeyQuery``, ``IdQuery``): one entry. `getAll` answers it as a list of one value, and
///   `putAll` stores exactly one value in it.
/// - ``MultiKeyedQuery`` (``IdsQuery``): the entries of its keys, in its order; a missing key is
///   ``StrataError/Code/notFound``; `putAll` takes one value per key.
/// - ``KeyListingQuery`` (``AllObjectsQuery``, ``PaginationOffsetLimitQuery``, and queries of your own): the
///   entries of the keys it selects from ``sortedKeys()``, under the list rule below. `putAll` in
///   ``AllObjectsQuery`` stores each value under the key ``keyOfValue`` gives it; `delete` removes what the
///   query selects (every entry for ``AllObjectsQuery``, through ``removeAll()``).
/// - Anything else: ``StrataError/Code/queryNotSupported``.
///
/// To teach every store a query of your own, make it a ``KeyedQuery``, a ``MultiKeyedQuery`` or a
/// ``KeyListingQuery`` (the hook: it selects keys out of the store's sorted live keys).
///
/// A read of several entries loads at most ``maximumReadSize`` bytes in all, each entry counted at
/// ``storedSize(forKey:)`` before it is read (the file and JSON-file stores bound it; the memory store, whose values
/// are in memory already, does not): past it, ``StrataError/Code/tooLarge``. Read a large store a page at a time.
///
/// ## The list rule
///
/// A cache that has never stored an answer for a listing query answers it with *not found*, so that a
/// repository's cache-first operations go to main: ``GetDataSource/getAll(_:)`` of a ``KeyListingQuery`` on a store that
/// holds no live entry throws ``StrataError/Code/notFound`` unless a list answer was stored —
/// `putAll(values, in: AllObjectsQuery())`, even of `[]` — and is still live (it expires when the entries
/// it stored would: with the store's time to live, or the earliest expiry of `putAllEntries`). A store that
/// holds entries lists them as always. `delete(AllObjectsQuery())` and ``removeAll()`` forget the stored
/// answer, and so does every entry the store drops on its own (an eviction under a limit, a trim, an expiry):
/// the answer would no longer be whole. The record of a stored answer lives in memory: a store opened again holds none until its next
/// list answer (its entries are listed as always).
///
/// As a ``CacheRepository``'s cache, under a plan that asks main on a miss (CacheSync, Default), a store answers a
/// listing (every entry, a page) only from a live stored list answer, never from the entries single reads wrote
/// back: "every user" is not the one user read so far. Main's answer to `AllObjectsQuery` is stored as the list
/// answer, and the keys the store held that it does not list (values main no longer has) are left out of the listing
/// the answer serves until they are written again; a page is returned and not stored. A stored answer one of whose entries no longer reads (expired,
/// damaged, removed behind the store's back, evicted) is not served: the store forgets it, and main is asked. A read of the cache alone (`.cache`) lists what it holds.
///
/// A store without a ``keyOfValue`` function cannot store a list of values; it still records an empty list
/// answer (`putAll([], in: AllObjectsQuery())`), and refuses a non-empty one with
/// ``StrataError/Code/queryNotSupported``.
///
/// ## The key rule
///
/// Keys are compared by Unicode canonical equivalence, as Swift compares strings: a key written in NFC
/// (`"é"`, U+00E9) is read back in NFD (`"e\u{301}"`) and the reverse, in every store. A store that derives a
/// file name from a key hashes the key's NFC form (``StoreKey/canonical(_:)``; an all-ASCII key is its own NFC
/// form and costs nothing more), so a key already in NFC keeps the file name it always had. The empty key is
/// refused with ``StrataError/Code/invalidArgument``.
///
/// ## Metadata
///
/// Every entry has its ``EntryMetadata``: the stored date and the expiry always, the validators where the store
/// keeps them. ``setValue(_:forKey:metadata:)`` keeps what it is given (a `nil` stored date means *now*, a `nil`
/// expiry means the store's time to live from now: ``EntryMetadata/expiry(timeToLive:now:)``), so a value copied
/// from another tier with `putEntry` never outlives its original's expiry, and lives the store's time to live at
/// most when the original has none. ``renewMetadata(_:forKey:)`` replaces the metadata of an entry,
/// expired or not, without rewriting its value — after a conditional read's *not modified*, only while the entry is
/// still the version the read confirmed (``EntryMetadata/renews(entryWithETag:lastModified:)``).
///
/// ## Notifications
///
/// A store publishes on its `changeBroadcaster` exactly the writes that happened, after they happened: a
/// `putAll` that fails half-way announces the keys it wrote, a failed write announces nothing. Renewals,
/// evictions and expiry are not announced: the data did not change.
///
/// ## Executors
///
/// The async methods are `nonisolated(nonsending)`: they never hop, and run the store's synchronous call on
/// the caller's executor (so a memory hit takes one lock and nothing else; a disk store's short file I/O runs
/// where the caller runs).
public protocol KeyValueStore<Value>: DataSource {
    /// Returns the live entry stored under `key` with its metadata, or `nil` when there is none (absent,
    /// expired, damaged); a keyed read marks it most recently used.
    ///
    /// - Parameter key: The key.
    /// - Throws: ``StrataError`` when the store cannot tell (an I/O error, a value that no longer decodes).
    func entry(forKey key: String) throws -> StoredEntry<Value>?

    /// Returns the live value stored under `key`, or `nil`, as ``entry(forKey:)`` does without its metadata: the
    /// hot path of `get`. The default reads ``entry(forKey:)``; a store that can skip building the metadata
    /// implements it.
    ///
    /// - Parameter key: The key.
    /// - Throws: As ``entry(forKey:)``.
    func value(forKey key: String) throws -> Value?

    /// Returns the live entry under `key` for a listing: as ``entry(forKey:)``, but the store may leave the
    /// recency order alone (a listing is no use of each entry). The default reads ``entry(forKey:)``.
    ///
    /// - Parameter key: The key.
    /// - Throws: As ``entry(forKey:)``.
    func listedEntry(forKey key: String) throws -> StoredEntry<Value>?

    /// Returns the live value under `key`, or `nil`, as ``value(forKey:)`` does, but throws a read that failed: what
    /// `get` reads.
    ///
    /// A store whose ``value(forKey:)`` cannot throw (it answers `nil` when a file cannot be read, as its API
    /// documents) implements it, so that the query dispatcher reports a store that cannot tell — out of descriptors,
    /// an I/O error — instead of a miss a repository would take to main. The default reads ``value(forKey:)``.
    ///
    /// - Parameter key: The key.
    /// - Throws: ``StrataError`` when the store cannot tell.
    func checkedValue(forKey key: String) throws -> Value?

    /// Returns the live entry under `key`, or `nil`, as ``entry(forKey:)`` does, but throws a read that failed: what
    /// `getEntry` and a read of several keys read. The default reads ``entry(forKey:)``.
    ///
    /// - Parameter key: The key.
    /// - Throws: As ``checkedValue(forKey:)``.
    func checkedEntry(forKey key: String) throws -> StoredEntry<Value>?

    /// Returns the live entry under `key` for a listing, or `nil`, as ``listedEntry(forKey:)`` does, but throws a
    /// read that failed: what a listing reads. The default reads ``listedEntry(forKey:)``.
    ///
    /// - Parameter key: The key.
    /// - Throws: As ``checkedValue(forKey:)``.
    func checkedListedEntry(forKey key: String) throws -> StoredEntry<Value>?

    /// The most bytes of stored data one read of several entries (`getAll`, `getAllEntries`) loads in all, each
    /// entry counted at ``storedSize(forKey:)`` before it is read; `nil` (the default) for none, for a store that
    /// holds its values in memory already.
    ///
    /// The read fails with ``StrataError/Code/tooLarge`` before it loads the entry that would pass it.
    var maximumReadSize: Int? { get }

    /// How many bytes reading the entry under `key` loads, as the store knows without reading it (`0` for an entry
    /// a read misses without loading it); `nil` when it does not know, or holds no such entry. The default is `nil`.
    ///
    /// - Parameter key: The key.
    func storedSize(forKey key: String) -> Int?

    /// Stores `value` under `key` with `metadata`, replacing any entry, and announces the write.
    ///
    /// A `nil` ``EntryMetadata/storedAt`` means now; a `nil` ``EntryMetadata/expiresAt`` means the store's
    /// time to live from now (never, without one); validators are kept where the store keeps them.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key; not empty.
    ///   - metadata: The entry's metadata.
    /// - Throws: ``StrataError``; nothing is announced then.
    func setValue(_ value: Value, forKey key: String, metadata: EntryMetadata) throws

    /// Replaces the metadata of the entry under `key` (expired or not) without rewriting its value; returns
    /// whether there was an entry to renew.
    ///
    /// Fields are read as ``setValue(_:forKey:metadata:)`` reads them. A conditional read's renewal renews only the
    /// version it confirmed: the store checks ``EntryMetadata/renews(entryWithETag:lastModified:)`` with the entry's
    /// validators under the lock its write takes, and leaves another version as it is (returning `true`).
    ///
    /// - Parameters:
    ///   - metadata: The new metadata.
    ///   - key: The key.
    /// - Throws: ``StrataError`` when the store holds the entry but cannot renew it.
    func renewMetadata(_ metadata: EntryMetadata, forKey key: String) throws -> Bool

    /// Removes the entry under `key`, announcing it when there was one; returns whether there was.
    ///
    /// - Parameter key: The key.
    @discardableResult
    func removeValue(forKey key: String) throws -> Bool

    /// Removes every entry and forgets the stored list answer (see the list rule).
    func removeAll() throws

    /// The live keys in ascending order (Swift's `String` order): the order of listings and pages.
    func sortedKeys() -> [String]

    /// The key under which `putAll(_:in: AllObjectsQuery())` stores each value; `nil` when the store has none.
    var keyOfValue: (@Sendable (Value) -> String)? { get }

    /// The record of the list answer the store was given (see the list rule).
    var storedListAnswer: StoredListAnswer { get }

    /// The keys of the entries tagged `tag` (``EntryMetadata/tags``), or `nil` when the store does not keep tags.
    ///
    /// `delete(TagQuery(tag))` removes them. A store that keeps tags answers from an index of tag to keys, so the
    /// answer costs what it holds, not the store's size. The default is `nil`: a ``TagQuery`` is then refused.
    ///
    /// - Parameter tag: The tag.
    func keys(taggedWith tag: String) -> [String]?

    /// Removes the entry under `key` only while it is tagged `tag`, announcing it; returns whether it removed one.
    ///
    /// `delete(TagQuery(tag))` removes each key ``keys(taggedWith:)`` listed through this call, so that an entry
    /// written under one of those keys after the listing, without the tag, is kept. A store that keeps tags checks
    /// the tag under the lock its removal takes; the default removes the entry whatever its tags.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - tag: The tag the entry must still carry.
    @discardableResult
    func removeValue(forKey key: String, ifTagged tag: String) throws -> Bool
}

extension KeyValueStore {
    /// The value of ``entry(forKey:)``.
    @inlinable
    public func value(forKey key: String) throws -> Value? {
        try entry(forKey: key)?.value
    }

    /// Reads ``entry(forKey:)``: a listing marks the entries it reads as used.
    ///
    /// - Parameter key: The key.
    @inlinable
    public func listedEntry(forKey key: String) throws -> StoredEntry<Value>? {
        try entry(forKey: key)
    }

    /// Reads ``value(forKey:)``, which throws what the store cannot read.
    ///
    /// - Parameter key: The key.
    @inlinable
    public func checkedValue(forKey key: String) throws -> Value? {
        try value(forKey: key)
    }

    /// Reads ``entry(forKey:)``, which throws what the store cannot read.
    ///
    /// - Parameter key: The key.
    @inlinable
    public func checkedEntry(forKey key: String) throws -> StoredEntry<Value>? {
        try entry(forKey: key)
    }

    /// Reads ``listedEntry(forKey:)``, which throws what the store cannot read.
    ///
    /// - Parameter key: The key.
    @inlinable
    public func checkedListedEntry(forKey key: String) throws -> StoredEntry<Value>? {
        try listedEntry(forKey: key)
    }

    /// `nil`: the store's reads of several entries are not bounded.
    public var maximumReadSize: Int? { nil }

    /// `nil`: the store does not know.
    ///
    /// - Parameter key: The key.
    public func storedSize(forKey key: String) -> Int? { nil }

    /// `nil`: the store does not keep tags.
    public func keys(taggedWith tag: String) -> [String]? { nil }

    /// Removes the entry under `key` whatever its tags: for a store that keeps none.
    @discardableResult
    public func removeValue(forKey key: String, ifTagged tag: String) throws -> Bool {
        try removeValue(forKey: key)
    }
}
