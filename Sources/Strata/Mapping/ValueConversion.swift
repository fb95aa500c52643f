/// The two conversions of a mapped source or repository, said once for both: what the wrapped one holds into what
/// callers see, and back, for a value, a list and an entry (whose metadata is kept).
///
/// Every failure is a ``StrataError/Code/dataSerialization`` error (see ``Mapper/mapOrThrowSerialization(_:)``).
struct ValueConversion<Stored: Sendable, Value: Sendable>: Sendable {
    private let toValue: any Mapper<Stored, Value>
    private let toStored: any Mapper<Value, Stored>

    init(toValue: some Mapper<Stored, Value>, toStored: some Mapper<Value, Stored>) {
        self.toValue = toValue
        self.toStored = toStored
    }

    /// What callers see of a stored value.
    func value(_ stored: Stored) throws -> Value { try toValue.mapOrThrowSerialization(stored) }

    /// What callers see of stored values.
    func values(_ stored: [Stored]) throws -> [Value] { try stored.map(value) }

    /// What callers see of a stored entry; the metadata is kept.
    func entry(_ stored: StoredEntry<Stored>) throws -> StoredEntry<Value> { try stored.map(value) }

    /// What callers see of stored entries; the metadata is kept.
    func entries(_ stored: [StoredEntry<Stored>]) throws -> [StoredEntry<Value>] { try stored.map(entry) }

    /// What callers see of the value a write of the wrapped side returned: that side took the write, so a failure
    /// says it may have taken effect (``StrataError/readingAnswer(toTakenWrite:)``).
    func written(_ stored: Stored) throws -> Value { try StrataError.readingAnswer { try value(stored) } }

    /// What callers see of the values a write of the wrapped side returned; a failure says the write may have taken
    /// effect.
    func written(_ stored: [Stored]) throws -> [Value] { try StrataError.readingAnswer { try values(stored) } }

    /// What is stored of a caller's value.
    func stored(_ value: Value) throws -> Stored { try toStored.mapOrThrowSerialization(value) }

    /// What is stored of a caller's values.
    func stored(_ values: [Value]) throws -> [Stored] { try values.map { try stored($0) } }

    /// What is stored of a caller's entry; the metadata is kept.
    func storedEntry(_ entry: StoredEntry<Value>) throws -> StoredEntry<Stored> { try entry.map { try stored($0) } }

    /// What is stored of a caller's entries; the metadata is kept.
    func storedEntries(_ entries: [StoredEntry<Value>]) throws -> [StoredEntry<Stored>] {
        try entries.map(storedEntry)
    }

    /// Runs a read of the wrapped source or repository, converting the values an error carries: the stale value of
    /// a *not valid* error, so that it can still be served and revalidated on this side
    /// (``StrataError/staleEntry(as:)``), main's value of ``StrataError/Code/cacheSyncFailed``, the values a partial
    /// list read found.
    ///
    /// A value that does not convert leaves the error without one: never a value of the wrong type. A payload that is
    /// no value of the wrapped side stays as it is.
    func convertingPayload<Result>(_ read: () async throws -> Result) async throws -> Result {
        do {
            return try await read()
        } catch var error as StrataError where error.payload != nil {
            error.payload = converted(error.payload)
            throw error
        }
    }

    /// The payload of an error, converted: a value of the wrapped side becomes one of this side, or `nil` when it does
    /// not convert; any other payload stays as it is.
    private func converted(_ payload: (any Sendable)?) -> (any Sendable)? {
        switch payload {
        case let stale as StaleEntry<Stored>:
            (try? entry(stale.entry)).map { StaleEntry(entry: $0, staleSince: stale.staleSince) }
        case let stale as StaleEntries<Stored>:
            (try? entries(stale.entries)).map { StaleEntries(entries: $0, staleSince: stale.staleSince) }
        case let partial as PartialValues<Stored>:
            (try? partial.values.map { try $0.map(value) }).map(PartialValues.init(values:))
        case let stored as Stored: try? value(stored)
        case let stored as [Stored]: try? values(stored)
        default: payload
        }
    }
}
