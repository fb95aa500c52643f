extension Outbox {
    /// The most an ``Outbox`` takes: its records and their values live in memory as well as on disk.
    public struct Limits: Sendable, Hashable {
        /// The most records, set-aside ones included; at least 1 (a smaller value set is taken as 1).
        public var maximumWrites: Int {
            didSet { maximumWrites = max(1, maximumWrites) }
        }

        /// The most bytes of queued values (encoded, as the record files hold them), set-aside ones included; at
        /// least 0 (an outbox of deletes only; a negative value set is taken as 0).
        public var maximumBytes: Int {
            didSet { maximumBytes = max(0, maximumBytes) }
        }

        /// 10,000 writes and 64 MiB of values.
        public static let `default` = Limits(maximumWrites: 10_000, maximumBytes: 64 << 20)

        /// Creates limits.
        ///
        /// - Parameters:
        ///   - maximumWrites: The most records; at least 1.
        ///   - maximumBytes: The most bytes of queued values; at least 0 (an outbox of deletes only).
        public init(maximumWrites: Int, maximumBytes: Int) {
            self.maximumWrites = max(1, maximumWrites)
            self.maximumBytes = max(0, maximumBytes)
        }
    }
}
