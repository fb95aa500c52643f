import Foundation
import Strata

extension MemoryDataSource {
    /// The limits and policies of a ``MemoryDataSource``.
    public struct Configuration: Sendable {
        /// The most entries kept; `nil` for no limit.
        ///
        /// A limit, whatever the number: 0 or less keeps nothing (every put is evicted at once, reported
        /// ``Strata/StoreEviction/Reason/countLimit``), unlike `NSCache`, for which 0 means no limit. The file and
        /// JSON stores, whose initializers throw, refuse a limit below 1 instead.
        public var countLimit: Int?

        /// The most total cost kept (bytes, by the default cost function); `nil` for no limit.
        ///
        /// A value that costs more than the whole limit is not kept (and evicts nothing for it), so a limit of 0 or
        /// less keeps only values that cost nothing.
        public var costLimit: Int?

        /// ``costLimit`` as the store applies it: a negative limit as 0, which keeps the values that cost nothing.
        @usableFromInline var appliedCostLimit: Int? { costLimit.map { max($0, 0) } }

        /// How long an entry lives unless its put says otherwise; `nil` for ever.
        public var timeToLive: Duration?

        /// The cost of a value; by default the byte count of `Data` and `String` values and 0 otherwise. A negative
        /// cost counts as 0.
        ///
        /// Eviction reports give the total cost as the store's bytes (``Strata/StoreUsage/bytes``) when the cost is
        /// one you gave, or the default one of `Data` and `String` values; otherwise they say the store does not
        /// count bytes (`nil`) rather than report 0.
        public var cost: @Sendable (Value) -> Int {
            didSet { costCountsBytes = true }
        }

        /// Whether the total cost stands for the entries' bytes in eviction reports: a cost given, or the default
        /// cost of `Data` and `String` values.
        @usableFromInline private(set) var costCountsBytes: Bool

        /// The key under which ``Strata/PutDataSource/putAll(_:in:)`` stores each value for queries
        /// that name no keys (``Strata/AllObjectsQuery``); `nil` refuses such puts.
        public var key: (@Sendable (Value) -> String)?

        /// The clock for stored dates and expiry.
        public var clock: any WallClock

        /// Hears every entry the source removes on its own — over the count limit
        /// (``Strata/StoreEviction/Reason/countLimit``) or the cost limit (``Strata/StoreEviction/Reason/sizeLimit``),
        /// expired, trimmed or purged by ``MemoryDataSource/removeAll()``
        /// — with the count and total cost left; `nil` (the default) reports nothing.
        public var evictionObserver: (any StoreEvictionObserver)? = nil

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - countLimit: The most entries kept.
        ///   - costLimit: The most total cost kept.
        ///   - timeToLive: The default lifetime of an entry.
        ///   - cost: The cost of a value.
        ///   - key: The key of a value, for puts of lists.
        ///   - clock: The clock for stored dates and expiry.
        public init(
            countLimit: Int? = nil,
            costLimit: Int? = nil,
            timeToLive: Duration? = nil,
            cost: (@Sendable (Value) -> Int)? = nil,
            key: (@Sendable (Value) -> String)? = nil,
            clock: any WallClock = SystemClock()
        ) {
            self.countLimit = countLimit
            self.costLimit = costLimit
            self.timeToLive = timeToLive
            self.cost = cost ?? Self.defaultCost()
            costCountsBytes = cost != nil || Value.self == Data.self || Value.self == String.self
            self.key = key
            self.clock = clock
        }

        /// The byte count for `Data` and `String` values, 0 for others; the type is checked once, here, rather
        /// than cast on every put.
        private static func defaultCost() -> @Sendable (Value) -> Int {
            // `unsafeBitCast` is sound: each branch runs only when `Value` is exactly the type cast to.
            if Value.self == Data.self { return { unsafeBitCast($0, to: Data.self).count } }
            if Value.self == String.self { return { unsafeBitCast($0, to: String.self).utf8.count } }
            return { _ in 0 }
        }
    }
}
