/// Tells a repository which of its sources to ask first and which one to keep in sync.
///
/// The operations are Harmony's: ``DefaultOperation``, ``MainOperation``, ``MainSyncOperation``,
/// ``CacheOperation`` and ``CacheSyncOperation``, spelled `.default`, `.main`, `.mainSync`, `.cache` and
/// `.cacheSync` at the call site.
///
/// An operation says what it does as a value: its ``plan`` (``OperationPlan``) tells a repository, for reads,
/// writes and deletes, which source is asked first, what is written back and what falls back. The repository
/// carries out every plan with one algorithm, so an operation of your own is a struct that returns a plan (the
/// article "Writing an operation" shows one). A repository throws ``StrataError/Code/operationNotSupported``
/// for a kind of call whose plan part is `nil`.
///
/// (Foundation already has a class named `Operation`, hence the longer protocol name.)
public protocol RepositoryOperation: Sendable {
    /// The operation's name in logs and metrics (``PluginCall/operationName``), such as `cacheSync`.
    ///
    /// The default is the type's name.
    var name: String { get }

    /// How a repository carries out the operation: for reads, writes and deletes, which source is asked first,
    /// what is written back and what falls back.
    ///
    /// The default declines every call (``OperationPlan/unsupported``).
    var plan: OperationPlan { get }
}

// MARK: - Defaults

extension RepositoryOperation {
    /// The type's name, such as `OfflineFirst`.
    public var name: String { String(describing: Self.self) }

    /// ``OperationPlan/unsupported``: every call is declined.
    public var plan: OperationPlan { .unsupported }
}

/// Lets the repository choose: GET as ``CacheSyncOperation``, PUT and DELETE as ``MainSyncOperation``.
public struct DefaultOperation: RepositoryOperation, Hashable {
    /// Creates the operation.
    @inlinable
    public init() {}

    /// `default`.
    public var name: String { "default" }

    /// GET as ``OperationPlan/Read/cacheSync``, PUT and DELETE as ``OperationPlan/Write/mainSync``.
    public var plan: OperationPlan { OperationPlan(read: .cacheSync, write: .mainSync, delete: .mainSync) }
}

/// Uses the main data source only.
public struct MainOperation: RepositoryOperation, Hashable {
    /// Creates the operation.
    @inlinable
    public init() {}

    /// `main`.
    public var name: String { "main" }

    /// Main only, for every call.
    public var plan: OperationPlan { OperationPlan(read: .main, write: .main, delete: .main) }
}

/// Asks the main data source first; when it succeeds, the cache is updated to match.
public struct MainSyncOperation: RepositoryOperation, Hashable {
    /// Creates the operation.
    @inlinable
    public init() {}

    /// `mainSync`.
    public var name: String { "mainSync" }

    /// Main, then the cache, for every call.
    public var plan: OperationPlan { OperationPlan(read: .mainSync, write: .mainSync, delete: .mainSync) }
}

/// Uses the cache data source only.
public struct CacheOperation: RepositoryOperation, Hashable {
    /// Whether a GET returns a cached value that failed validation instead of a *not valid* error (never one whose
    /// source forbids serving it stale: ``EntryMetadata/forbidsServingStale``).
    public let ignoringValidation: Bool

    /// Creates the operation.
    ///
    /// - Parameter ignoringValidation: Return an expired or otherwise invalid cached value on GET
    ///   instead of throwing ``StrataError/Code/notValid``.
    @inlinable
    public init(ignoringValidation: Bool = false) {
        self.ignoringValidation = ignoringValidation
    }

    /// `cache`, or `cacheIgnoringValidation`.
    public var name: String { ignoringValidation ? "cacheIgnoringValidation" : "cache" }

    /// The cache only, for every call.
    public var plan: OperationPlan {
        OperationPlan(read: .cache(ignoringValidation: ignoringValidation), write: .cache, delete: .cache)
    }
}

/// Asks the cache first; GET falls through to the main source on *not found* or *not valid*.
///
/// PUT and DELETE write the cache, then the main source. On GET, a ``fallback`` rule may serve the stale
/// cached value when the main source then fails (serve-stale-on-error).
///
/// Neither the fallback nor the ``staleWhileRevalidate`` window serves an entry whose source forbids serving it
/// stale (``EntryMetadata/forbidsServingStale``, HTTP's `must-revalidate` and `no-cache`): such an entry is
/// revalidated with main before every answer past its freshness, and main's error is thrown when that fails.
public struct CacheSyncOperation: RepositoryOperation {
    /// Decides, for the main source's error, whether to serve the stale cached value instead.
    public let fallback: @Sendable (any Error) -> Bool

    /// The stale-while-revalidate window: a value stale for less than it is returned at once and refreshed from
    /// main in the background; `nil` reads main before answering.
    public var staleWhileRevalidate: OperationPlan.BackgroundRefresh? { refresh?.rule }

    /// The stale-while-revalidate rule behind one reference, so that the operation is three words: an
    /// `any RepositoryOperation` holds it inline, and `operation: .cacheSync` allocates nothing per call.
    @usableFromInline let refresh: BackgroundRefreshRule?

    /// Creates the operation.
    ///
    /// - Parameters:
    ///   - fallback: Returns `true` for a main-source error after which the stale (invalid)
    ///     cached value should be returned. The default never falls back.
    ///   - staleWhileRevalidate: The window in which a stale value is returned at once and refreshed in the
    ///     background; `nil` (the default) reads main before answering.
    @inlinable
    public init(
        fallback: @escaping @Sendable (any Error) -> Bool = { _ in false },
        staleWhileRevalidate: OperationPlan.BackgroundRefresh? = nil
    ) {
        self.fallback = fallback
        refresh = staleWhileRevalidate.map(BackgroundRefreshRule.init)
    }

    /// `cacheSync`, or `cacheSyncStaleWhileRevalidate`.
    public var name: String { refresh == nil ? "cacheSync" : "cacheSyncStaleWhileRevalidate" }

    /// The cache, then main on a miss (serving stale by ``fallback`` and ``staleWhileRevalidate``); PUT and DELETE
    /// the cache, then main.
    public var plan: OperationPlan {
        var read = OperationPlan.Read.cacheSync(fallback: fallback)
        read.refreshesInBackground = staleWhileRevalidate
        return OperationPlan(read: read, write: .cacheSync, delete: .cacheSync)
    }
}

/// A ``CacheSyncOperation``'s stale-while-revalidate rule, kept by reference (see
/// ``CacheSyncOperation/refresh``).
@usableFromInline
final class BackgroundRefreshRule: Sendable {
    /// The rule.
    @usableFromInline let rule: OperationPlan.BackgroundRefresh

    /// Keeps `rule`.
    @inlinable init(_ rule: OperationPlan.BackgroundRefresh) {
        self.rule = rule
    }
}

// MARK: - Call-site spellings

extension RepositoryOperation where Self == DefaultOperation {
    /// GET as CacheSync, PUT and DELETE as MainSync.
    @inlinable
    public static var `default`: DefaultOperation { DefaultOperation() }
}

extension RepositoryOperation where Self == MainOperation {
    /// The main data source only.
    @inlinable
    public static var main: MainOperation { MainOperation() }
}

extension RepositoryOperation where Self == MainSyncOperation {
    /// The main data source, then the cache on success.
    @inlinable
    public static var mainSync: MainSyncOperation { MainSyncOperation() }
}

extension RepositoryOperation where Self == CacheOperation {
    /// The cache data source only.
    @inlinable
    public static var cache: CacheOperation { CacheOperation() }

    /// The cache data source only, returning invalid values instead of a *not valid* error.
    @inlinable
    public static var cacheIgnoringValidation: CacheOperation { CacheOperation(ignoringValidation: true) }
}

extension RepositoryOperation where Self == CacheSyncOperation {
    /// The cache first, then the main data source on a miss.
    @inlinable
    public static var cacheSync: CacheSyncOperation { CacheSyncOperation() }

    /// The cache first, then the main data source; serves the stale cached value when the main
    /// source fails with an error that `rule` accepts.
    ///
    /// - Parameter rule: Returns `true` for errors after which the stale value is served.
    @inlinable
    public static func cacheSync(fallback rule: @escaping @Sendable (any Error) -> Bool) -> CacheSyncOperation {
        CacheSyncOperation(fallback: rule)
    }

    /// The cache first; a value stale for less than `window` is returned at once and refreshed from main in the
    /// background, anything else is read from main first (``OperationPlan/BackgroundRefresh``).
    ///
    /// - Parameters:
    ///   - window: How long after going stale a value is still returned at once.
    ///   - clock: The clock that says what time it is.
    @inlinable
    public static func cacheSync(
        staleWhileRevalidate window: Duration,
        clock: any WallClock = SystemClock()
    ) -> CacheSyncOperation {
        CacheSyncOperation(staleWhileRevalidate: OperationPlan.BackgroundRefresh(window: window, clock: clock))
    }
}
