/// A repository over a *main* and a *cache* data source, where each call's operation decides the order.
///
/// | operation | GET | PUT | DELETE |
/// |---|---|---|---|
/// | ``DefaultOperation`` | as CacheSync | as MainSync | as MainSync |
/// | ``MainOperation`` | main only | main only | main only |
/// | ``MainSyncOperation`` | main, then put into cache | main, then cache with main's value | main, then cache |
/// | ``CacheOperation`` | cache only | cache only | cache only |
/// | ``CacheSyncOperation`` | cache; on a miss, as MainSync | cache, then main | cache, then main |
///
/// A GET with CacheSync goes to the main source only when the cache throws
/// ``StrataError/Code/notFound`` or ``StrataError/Code/notValid``; any other cache error is returned as
/// it is. When the main source then fails and the operation's fallback rule accepts the error, the stale
/// cached value is returned instead (serve-stale-on-error).
///
/// Concurrent CacheSync reads of an equal `Hashable` query that miss the cache share one main read and
/// one cache write (see ``Configuration/coalescesMainReads``); each reader still applies its own
/// fallback rule.
///
/// ```swift
/// let users = CacheRepository(
///     main: UsersAPI(client),
///     cache: MemoryDataSource<User>(countLimit: 500).validated(by: .maxAge(.seconds(300)))
/// )
/// let user = try await users.get(IdQuery(42), operation: .cacheSync)
/// try await users.put(user, in: IdQuery(42), operation: .mainSync)
/// ```
public struct CacheRepository<Main: Sendable, Cache: Sendable>: Sendable {
    /// The authoritative source: a server, a database.
    public let main: Main

    /// The fast source kept in sync with the main one.
    public let cache: Cache

    /// How the repository behaves around its two sources.
    public let configuration: Configuration

    /// Shares the main read of a CacheSync miss among concurrent identical reads.
    let mainReads = RequestCoalescer<MainReadKey, any Sendable>()

    /// Announces every write and delete made through this repository (and its copies) to its streams.
    public let changeBroadcaster = ChangeBroadcaster()

    /// Creates a repository over a main and a cache data source.
    ///
    /// - Parameters:
    ///   - main: The authoritative source.
    ///   - cache: The fast source; wrap it in a validator for expiry.
    ///   - configuration: Cache-write policy and other options.
    public init(main: Main, cache: Cache, configuration: Configuration = Configuration()) {
        self.main = main
        self.cache = cache
        self.configuration = configuration
    }
}

extension CacheRepository {
    /// Options of a ``CacheRepository``.
    public struct Configuration: Sendable {
        /// What a failed cache write after a successful main call does.
        public var cacheWrites: CacheWritePolicy

        /// Whether concurrent CacheSync reads of an equal query that miss the cache share one main read
        /// (and its cache write); on by default.
        ///
        /// Only queries that are `Hashable` are shared. A caller whose task is cancelled stops waiting
        /// with ``StrataError/Code/cancelled``; the shared main read goes on for the others.
        public var coalescesMainReads: Bool

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - cacheWrites: ``CacheWritePolicy/required`` (the default) reports a failed cache write as
        ///     ``StrataError/Code/cacheSyncFailed``; ``CacheWritePolicy/bestEffort`` ignores it.
        ///   - coalescesMainReads: Share the main read of concurrent identical CacheSync misses.
        public init(cacheWrites: CacheWritePolicy = .required, coalescesMainReads: Bool = true) {
            self.cacheWrites = cacheWrites
            self.coalescesMainReads = coalescesMainReads
        }
    }

    /// What a failed cache write after a successful main call does.
    public enum CacheWritePolicy: Sendable, Hashable {
        /// The call fails with ``StrataError/Code/cacheSyncFailed``; the main value is the error's payload.
        case required
        /// The failure is ignored and the main value is returned.
        case bestEffort
    }

    /// What the repository does for one call, after resolving ``DefaultOperation``.
    enum Plan {
        case main
        case mainSync
        case cache(ignoringValidation: Bool)
        case cacheSync(fallback: @Sendable (any Error) -> Bool)
    }

    /// Resolves an operation for a GET; the common CacheSync and Default are checked first.
    func readPlan(for operation: any RepositoryOperation) throws -> Plan {
        if let operation = operation as? CacheSyncOperation { return .cacheSync(fallback: operation.fallback) }
        if operation is DefaultOperation { return .cacheSync(fallback: { _ in false }) }
        return try plan(for: operation)
    }

    /// Resolves an operation for a PUT or DELETE.
    func writePlan(for operation: any RepositoryOperation) throws -> Plan {
        switch operation {
        case is DefaultOperation: return .mainSync
        default: return try plan(for: operation)
        }
    }

    private func plan(for operation: any RepositoryOperation) throws -> Plan {
        switch operation {
        case is MainOperation: return .main
        case is MainSyncOperation: return .mainSync
        case let operation as CacheOperation: return .cache(ignoringValidation: operation.ignoringValidation)
        case let operation as CacheSyncOperation: return .cacheSync(fallback: operation.fallback)
        default: throw StrataError.operationNotSupported(operation, by: Self.self)
        }
    }

    /// Runs a cache write that follows a successful main call, applying the write policy.
    func syncCache<Result: Sendable>(
        after mainResult: Result,
        _ write: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await write()
        } catch {
            if configuration.cacheWrites == .bestEffort { return mainResult }
            throw StrataError(
                .cacheSyncFailed,
                "The main source succeeded but writing its result to the cache failed",
                underlying: error,
                payload: mainResult
            )
        }
    }
}

extension CacheRepository: RepositoryCapabilities {}
