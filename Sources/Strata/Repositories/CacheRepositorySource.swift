/// A ``CacheRepository`` used as a data source at a fixed operation: a tier of a bigger repository.
///
/// Two-source repositories stack into three tiers — memory over disk over the network — by using the inner
/// repository as the main (or cache) source of the outer one:
///
/// ```swift
/// let disk = CacheRepository(main: UsersAPI(client), cache: files)
/// let users = CacheRepository(main: disk.asDataSource(operation: .cacheSync), cache: MemoryDataSource<User>())
/// ```
///
/// Every call goes through the repository with the source's operation, so the ordinary plans apply at each
/// level: a memory miss reads the disk tier, which answers from disk or from the network. The capabilities are
/// the repository's:
///
/// - ``getEntry(_:)`` and ``getAllEntries(_:)`` keep the metadata of the tier that answered, so the outer
///   repository's copy keeps the original's stored date and expiry.
/// - ``getIfModified(_:since:)`` reads through the repository (which revalidates its own stale entries with its
///   main source) and answers ``ConditionalRead/notModified(_:)`` when the entry it finds carries the caller's
///   validators.
/// - ``putEntry(_:in:)`` writes the entry's metadata to every tier the operation writes, and
///   ``renewMetadata(_:in:)`` renews it there.
/// - ``origin`` is the origin of the source the operation's read plan asks first (the cache for `.cacheSync`,
///   as a stream's loading response names it): where values come from when the first tier answers. Which tier
///   answered one read is not reported.
/// - A stale cached value the repository serves (inside a stale-while-revalidate window, or by the fallback rule
///   after its main source failed) is stale to the repository above too: its response says `isStale`, its read is
///   ``CallOutcome/staleServed``, the value is not stored in its cache as current, and it is not main's answer
///   (``CacheRepository/Configuration/onMainAnswer``). A ``SingleDataSourceRepository``'s stream shows it as stale.
/// - A list it answers in part (``StrataError/partialValues(as:)``) is, to the repository above, a shorter list:
///   its own partial error names every key it was asked, the values found in their places; they carry no metadata,
///   so the repository above does not store them (this one has, in its own tiers).
/// - ``changes(forKey:)`` merges the repository's announcements with its two sources'.
public struct CacheRepositorySource<Main: Sendable, Cache: Sendable>: Sendable {
    /// The repository every call goes through.
    public let repository: CacheRepository<Main, Cache>

    /// The operation of every call.
    public let operation: any RepositoryOperation

    /// Uses a repository as a data source.
    ///
    /// - Parameters:
    ///   - repository: The repository every call goes through.
    ///   - operation: The operation of every call.
    public init(_ repository: CacheRepository<Main, Cache>, operation: any RepositoryOperation) {
        self.repository = repository
        self.operation = operation
    }
}

extension CacheRepository {
    /// This repository as a data source whose every call uses `operation`: a tier of a bigger repository.
    ///
    /// - Parameter operation: The operation of every call; ``DefaultOperation`` by default (reads cache first,
    ///   writes main first).
    /// - Returns: A source that is a ``GetDataSource``, ``PutDataSource`` and ``DeleteDataSource`` as far as this
    ///   repository reads, writes and deletes.
    public func asDataSource(
        operation: any RepositoryOperation = DefaultOperation()
    ) -> CacheRepositorySource<Main, Cache> {
        CacheRepositorySource(self, operation: operation)
    }
}

extension CacheRepositorySource: DataSourceCapabilities
where Main: DataSourceCapabilities, Cache: DataSourceCapabilities {
    /// The origin of the source the operation's read plan asks first; main's when the operation does not read.
    public var origin: DataOrigin {
        operation.plan.read?.first == .cache ? repository.cache.origin : repository.main.origin
    }

    /// The repository's announcements merged with its main and cache sources' changes.
    ///
    /// Only the newest changes wait for a slow consumer, as with ``ChangeBroadcaster``'s observers (one for a key,
    /// 64 for every key): a change only names what to read again. A stream of every key that loses a change is sent
    /// ``DataChange/invalidateAll`` after it.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> {
        let streams = [
            repository.changeBroadcaster.changes(forKey: key),
            repository.cache.changes(forKey: key),
            repository.main.changes(forKey: key),
        ]
        let (merged, delivery) = ChangeDelivery.makeStream(limit: nil, forKey: key)
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for stream in streams {
                    group.addTask {
                        for await change in stream { delivery.send(change) }
                    }
                }
            }
            delivery.finish()
        }
        delivery.onTermination { task.cancel() }
        return merged
    }
}
