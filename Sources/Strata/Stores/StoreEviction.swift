/// One removal a store made on its own: an entry evicted under a limit, an expired entry dropped, or a purge.
///
/// A store with an ``StoreEvictionObserver`` reports each one (see the `evictionObserver` of the memory, file and
/// JSON-file stores' configurations). Removals a caller asked for by key (`delete`, `removeValue(forKey:)`) are
/// not evictions and are not reported.
public struct StoreEviction: Sendable, Hashable {
    /// Why a store removed entries.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable, Hashable {
            case countLimit, sizeLimit, expired, purged
        }

        private let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        /// The store held more entries than its count limit; the least recently used went.
        public static let countLimit = Reason(.countLimit)

        /// The store held more bytes (memory: more cost; files: of data, or of keys and metadata) than its limit; the
        /// least recently used went.
        public static let sizeLimit = Reason(.sizeLimit)

        /// The entry's time to live had passed.
        public static let expired = Reason(.expired)

        /// The store was emptied or trimmed on demand (`removeAll()`, a memory store's `trim(keeping:)`).
        public static let purged = Reason(.purged)

        /// The reason's name, `countLimit`, `sizeLimit`, `expired` or `purged`: a stable label for metrics.
        public var description: String { kind.rawValue }
    }

    /// Why the entries went.
    public let reason: Reason

    /// The key of the entry that went; `nil` for a purge that emptied the store at once.
    public let key: String?

    /// How many entries went: one, or every entry of a purge.
    public let count: Int

    /// What the store holds just after the removal.
    public let usage: StoreUsage

    /// Creates an eviction report.
    ///
    /// - Parameters:
    ///   - reason: Why the entries went.
    ///   - key: The key of the entry, or `nil` for a purge of several.
    ///   - count: How many entries went.
    ///   - usage: What the store holds after it.
    public init(reason: Reason, key: String?, count: Int = 1, usage: StoreUsage) {
        self.reason = reason
        self.key = key
        self.count = count
        self.usage = usage
    }
}

/// How much a store holds: its entries and, where it counts them, their bytes.
public struct StoreUsage: Sendable, Hashable {
    /// The number of entries (expired ones not yet removed included).
    public let count: Int

    /// The bytes the entries take: the memory store's total cost (when it has a cost to count: one given, or the
    /// default one of `Data` and `String` values), the file store's payload bytes, the JSON-file store's entry files;
    /// `nil` for a store that does not count bytes.
    public let bytes: Int?

    /// Creates a usage report.
    ///
    /// - Parameters:
    ///   - count: The number of entries.
    ///   - bytes: Their bytes, or `nil` when the store does not count them.
    public init(count: Int, bytes: Int?) {
        self.count = count
        self.bytes = bytes
    }
}

/// Hears every entry a store removes on its own, with the reason: metrics, logs, alerts on a cache that churns.
///
/// The store calls ``storeDidEvict(_:)`` on the thread that evicted, while it holds its lock, so that reports arrive
/// in the order the removals happened: keep the work small and never call back into the store, its change
/// broadcaster included (publishing a change there, or starting a stream of its changes, waits for a lock the
/// store's streams hold while they wait for the store's: the two threads stop for good). The report carries the
/// store's ``StoreUsage``.
///
/// ```swift
/// struct EvictionLog: StoreEvictionObserver {
///     func storeDidEvict(_ eviction: StoreEviction) {
///         print("evicted \(eviction.key ?? "everything") (\(eviction.reason)); \(eviction.usage.count) left")
///     }
/// }
/// var configuration = MemoryDataSource<Data>.Configuration(countLimit: 1_000)
/// configuration.evictionObserver = EvictionLog()
/// ```
public protocol StoreEvictionObserver: Sendable {
    /// Called once per removal: per entry for limits and expiry, once for a purge that emptied the store.
    ///
    /// - Parameter eviction: What went, why, and what the store holds now.
    func storeDidEvict(_ eviction: StoreEviction)
}
