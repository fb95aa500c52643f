/// A file of the outbox that is intact JSON but not a record: set aside, never replayed, kept until dropped.
public struct UnreadableRecord: Sendable, Hashable {
    /// The sequence number of the file (the store key it is kept under), whatever its contents claim; `nil` for a
    /// key that is not a sequence number. ``Outbox/drop(_:)`` removes it by that number.
    public var sequence: UInt64?

    /// Why the file is not a record.
    public var reason: String
}
