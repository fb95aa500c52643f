import Strata

/// A ``Strata/StoreEvictionObserver`` that keeps every report, for tests that check what a store evicted and why.
///
/// ```swift
/// let recorder = EvictionRecorder()
/// var configuration = MemoryDataSource<Data>.Configuration(countLimit: 2)
/// configuration.evictionObserver = recorder
/// // … three puts …
/// #expect(recorder.evictions.map(\.reason) == [.countLimit])
/// ```
public final class EvictionRecorder: StoreEvictionObserver {
    private let recorded = Locked<[StoreEviction]>([])

    /// Creates a recorder with nothing recorded.
    public init() {}

    /// Every report so far, oldest first.
    public var evictions: [StoreEviction] { recorded.withLock { $0 } }

    /// The keys reported so far with their reasons, such as `["a: countLimit"]`; `*` stands for a purge's `nil` key.
    public var summary: [String] { evictions.map { "\($0.key ?? "*"): \($0.reason)" } }

    /// Keeps the report.
    public func storeDidEvict(_ eviction: StoreEviction) {
        recorded.withLock { $0.append(eviction) }
    }
}
