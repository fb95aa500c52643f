import struct Foundation.Date

/// A stored value with its metadata: when it was written, when it expires, its validators.
public struct StoredEntry<Value: Sendable>: Sendable {
    /// The value.
    public var value: Value

    /// What the source knows about the entry.
    public var metadata: EntryMetadata

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - metadata: What the source knows about it.
    public init(value: Value, metadata: EntryMetadata) {
        self.value = value
        self.metadata = metadata
    }

    /// Creates an entry with its stored date and, optionally, its expiry.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - storedAt: When it was stored, if known.
    ///   - expiresAt: When it expires; `nil` for never.
    public init(value: Value, storedAt: Date?, expiresAt: Date? = nil) {
        self.init(value: value, metadata: EntryMetadata(storedAt: storedAt, expiresAt: expiresAt))
    }

    /// When the value was written to its source, if the source records it.
    public var storedAt: Date? {
        get { metadata.storedAt }
        set { metadata.storedAt = newValue }
    }

    /// When the entry expires, if it does.
    public var expiresAt: Date? {
        get { metadata.expiresAt }
        set { metadata.expiresAt = newValue }
    }

    /// The same metadata with another value, as a mapper produces it.
    ///
    /// - Parameter transform: Converts the value.
    public func map<NewValue: Sendable>(_ transform: (Value) throws -> NewValue) rethrows -> StoredEntry<NewValue> {
        StoredEntry<NewValue>(value: try transform(value), metadata: metadata)
    }
}

extension StoredEntry: Equatable where Value: Equatable {}
