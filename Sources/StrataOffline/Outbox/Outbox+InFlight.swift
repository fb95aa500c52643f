extension Outbox {
    /// The record a replay is sending: a later write never cancels it, and it ends only when main has answered.
    struct InFlight {
        /// The record's ``PendingWrite/sequence``.
        var sequence: UInt64
        /// The record's key.
        var key: String
        /// Whether the record was dropped (``Outbox/drop(_:)``, ``Outbox/dropAll()``) while on its way: main may
        /// still apply it, so its key stays pending, and a later write of the key queued, until the send ends.
        var isDropped = false
        /// The later record that would have cancelled this one had it not been on its way: it replaces the sent
        /// record if the send fails.
        var replacedBy: UInt64?
    }
}
