/// The answer to a conditional read (``GetDataSource/getIfModified(_:since:)``): a new entry, or *not modified*.
///
/// A 304 is a value, not an error: the caller keeps the entry it has and renews its metadata.
public enum ConditionalRead<Value: Sendable>: Sendable {
    /// The source has another value (or cannot tell): here it is, with its metadata.
    case modified(StoredEntry<Value>)

    /// The caller's entry is still current; the metadata is the source's renewed view of it (new expiry,
    /// validators), to store without rewriting the value.
    case notModified(EntryMetadata)
}
