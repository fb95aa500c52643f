import struct Foundation.Date

/// A payload that stands for a stale value: ``StrataError/value(as:)`` answers with ``staleValue``.
protocol StalePayload: Sendable {
    /// The stale value (one value, or an array of values for a list read).
    var staleValue: any Sendable { get }
    /// When the value stopped being valid, if its validator said.
    var staleSince: Date? { get }
}

/// The stale entry of a *not valid* read.
struct StaleEntry<Value: Sendable>: StalePayload {
    let entry: StoredEntry<Value>
    let staleSince: Date?
    var staleValue: any Sendable { entry.value }
}

/// The stale entries of a *not valid* list read.
struct StaleEntries<Value: Sendable>: StalePayload {
    let entries: [StoredEntry<Value>]
    let staleSince: Date?
    var staleValue: any Sendable { entries.map { $0.value } }
}

extension StrataError {
    /// When the stale value of a *not valid* error stopped being valid, as its validator said
    /// (``Validator/staleSince(_:context:)``); `nil` when it did not say or the error carries no stale entry.
    public var staleSince: Date? { (payload as? any StalePayload)?.staleSince }

    /// The stale entry a *not valid* error carries, with its metadata, when it has one of this value type.
    ///
    /// A cache that knows the entry's validators (ETag, Last-Modified) lets a repository revalidate it with
    /// main instead of reading it again in full.
    ///
    /// - Parameter type: The value type.
    public func staleEntry<Value: Sendable>(as type: Value.Type = Value.self) -> StoredEntry<Value>? {
        if let stale = payload as? StaleEntry<Value> { return stale.entry }
        if let value = payload as? Value { return StoredEntry(value: value, metadata: EntryMetadata()) }
        return nil
    }

    /// This error with the stale list it carries made into one stale entry when the list holds exactly one value of
    /// this type: what a single read answered by a list read of its key throws, so that ``staleEntry(as:)`` and
    /// ``value(as:)`` answer as for a read of one.
    ///
    /// - Parameter type: The value type.
    func singleStaleEntry<Value: Sendable>(as type: Value.Type) -> StrataError {
        var error = self
        if let stale = payload as? StaleEntries<Value>, stale.entries.count == 1, let entry = stale.entries.first {
            error.payload = StaleEntry(entry: entry, staleSince: stale.staleSince)
        } else if let values = payload as? [Value], values.count == 1, let value = values.first {
            error.payload = value
        }
        return error
    }

    /// The stale entries a *not valid* list read carries, with their metadata.
    ///
    /// - Parameter type: The value type.
    public func staleEntries<Value: Sendable>(as type: Value.Type = Value.self) -> [StoredEntry<Value>]? {
        if let stale = payload as? StaleEntries<Value> { return stale.entries }
        if let values = payload as? [Value] { return values.map { StoredEntry(value: $0, metadata: EntryMetadata()) } }
        return nil
    }
}
