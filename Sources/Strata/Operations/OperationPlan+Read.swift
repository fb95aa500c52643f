extension OperationPlan {
    /// How a read (`get`, `getAll`, `stream`) goes: the source asked first, when main is asked after the
    /// cache, whether main's value is written back, and what a stale cached value is good for.
    ///
    /// The algorithm, for a read that starts at the cache:
    ///
    /// 1. The cache answers: its value is returned.
    /// 2. The cache throws *not valid* with the stale entry and ``staleValues`` is
    ///    ``StaleValues/served``: the stale value is returned. With ``refreshesInBackground``, a stale value that
    ///    went stale less than the window ago is returned too, and step 3 runs in the background.
    /// 3. The cache throws an error in ``asksMainOn``: main is asked. When the cache's stale entry carries
    ///    validators (``EntryMetadata/hasValidators``) and ``revalidates`` is set, main is asked conditionally
    ///    (``GetDataSource/getIfModified(_:since:)``); *not modified* renews the cached entry's metadata and
    ///    returns the stale value. Otherwise main's entry is read and, with ``writesBack``, stored in the cache
    ///    with its metadata (``PutDataSource/putEntry(_:in:)``), so the copy never outlives the original.
    /// 4. Main fails and ``staleValues`` is ``StaleValues/servedWhenMainFails(_:)`` with a rule that accepts
    ///    main's error: the stale value is returned. Otherwise main's error is thrown.
    /// 5. Any other cache error is thrown as it is.
    ///
    /// A read that starts at main reads main's entry and, with ``writesBack``, stores it in the cache.
    public struct Read: Sendable {
        /// The source asked first.
        public var first: Source

        /// For a read that starts at the cache: the cache errors after which main is asked. Empty: the cache only.
        public var asksMainOn: CacheMisses

        /// Whether a value read from main is written into the cache, with its metadata.
        ///
        /// A failed cache write follows the repository's ``CacheRepository/CacheWritePolicy``. The value is not
        /// written when a write of its keys went through the repository since the read began: the cache keeps the
        /// newer value (see ``CacheRepository``).
        public var writesBack: Bool

        /// What a stale value — one the cache returned with *not valid* — is used for.
        public var staleValues: StaleValues

        /// Whether main is asked conditionally about a stale cached entry that carries validators.
        public var revalidates: Bool

        /// Stale-while-revalidate: a stale value inside the window is returned at once and main is read in the
        /// background; `nil` reads main before answering.
        public var refreshesInBackground: BackgroundRefresh?

        /// Creates a read plan.
        ///
        /// - Parameters:
        ///   - first: The source asked first.
        ///   - asksMainOn: For a read that starts at the cache, the cache errors after which main is asked.
        ///   - writesBack: Whether a value read from main is written into the cache.
        ///   - staleValues: What a stale cached value is used for.
        ///   - revalidates: Whether a stale entry with validators is revalidated with a conditional read.
        ///   - refreshesInBackground: The stale-while-revalidate window, or `nil` to read main before answering.
        public init(
            first: Source,
            asksMainOn: CacheMisses = [],
            writesBack: Bool = false,
            staleValues: StaleValues = .notServed,
            revalidates: Bool = true,
            refreshesInBackground: BackgroundRefresh? = nil
        ) {
            self.first = first
            self.asksMainOn = asksMainOn
            self.writesBack = writesBack
            self.staleValues = staleValues
            self.revalidates = revalidates
            self.refreshesInBackground = refreshesInBackground
        }
    }

    /// The cache errors after which a read asks main.
    public struct CacheMisses: OptionSet, Sendable, Hashable {
        /// The bits of the set.
        public let rawValue: UInt8

        /// Creates a set from its bits.
        ///
        /// - Parameter rawValue: The bits.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// ``StrataError/Code/notFound``: the cache has no value.
        public static let notFound = CacheMisses(rawValue: 1 << 0)

        /// ``StrataError/Code/notValid``: the cache's value failed validation (it is stale).
        public static let notValid = CacheMisses(rawValue: 1 << 1)

        /// Both: what ``StrataError/isMiss`` calls a miss.
        public static let all: CacheMisses = [.notFound, .notValid]

        /// Whether the set holds the code of `error`.
        ///
        /// - Parameter error: A cache error.
        public func contains(_ error: StrataError) -> Bool {
            switch error.code {
            case .notFound: contains(.notFound)
            case .notValid: contains(.notValid)
            default: false
            }
        }
    }

    /// What a stale cached value is used for.
    public enum StaleValues: Sendable {
        /// Nothing: the *not valid* error goes on (to main, or to the caller).
        case notServed
        /// It is returned at once instead of the *not valid* error (``CacheOperation/ignoringValidation``).
        case served
        /// It is returned when main, asked after the cache, fails with an error the rule accepts
        /// (serve-stale-on-error, ``CacheSyncOperation/fallback``).
        case servedWhenMainFails(@Sendable (any Error) -> Bool)

        /// Whether the stale value replaces main's `error`.
        ///
        /// Never for ``StrataError/Code/cacheSyncFailed``: main answered, only the cache write after it failed, and
        /// the write policy decides (main's value is that error's payload).
        func servesStale(after error: any Error) -> Bool {
            guard case .servedWhenMainFails(let rule) = self,
                (error as? StrataError)?.code != .cacheSyncFailed
            else { return false }
            return rule(error)
        }
    }
}

extension OperationPlan.Read {
    /// How a stale value is returned before main answers (step 2 of the algorithm).
    enum StaleServing: Sendable {
        /// As it is: main is not asked (``StaleValues/served``).
        case asItIs
        /// While main is read in the background (``refreshesInBackground``).
        case whileRefreshing
    }

    /// How a stale value the cache's `miss` carries is returned before main answers, the rule of step 2 for one key
    /// as for each key of a list: as it is with ``StaleValues/served``, while main is read in the background when it
    /// went stale inside the ``refreshesInBackground`` window; `nil` when main is asked first (or the miss thrown).
    ///
    /// - Parameter miss: The cache's error for the value.
    func servesStaleAtOnce(after miss: StrataError) -> StaleServing? {
        guard miss.code == .notValid else { return nil }
        if case .served = staleValues { return .asItIs }
        if let refreshesInBackground, refreshesInBackground.contains(miss) { return .whileRefreshing }
        return nil
    }
}

// MARK: - The built-in read plans

extension OperationPlan.Read {
    /// Main only.
    public static var main: Self { Self(first: .main) }

    /// Main, then its value (with its metadata) into the cache.
    public static var mainSync: Self { Self(first: .main, writesBack: true) }

    /// The cache only.
    public static var cache: Self { cache(ignoringValidation: false) }

    /// The cache only; with `ignoringValidation`, a stale value is returned instead of *not valid*.
    ///
    /// - Parameter ignoringValidation: Return a stale cached value instead of the *not valid* error.
    public static func cache(ignoringValidation: Bool) -> Self {
        Self(first: .cache, staleValues: ignoringValidation ? .served : .notServed)
    }

    /// The cache; on *not found* or *not valid*, main (conditionally for a stale entry with validators), whose
    /// value is written into the cache.
    public static var cacheSync: Self { Self(first: .cache, asksMainOn: .all, writesBack: true) }

    /// As ``cacheSync``, serving the stale value when main fails with an error `rule` accepts.
    ///
    /// - Parameter rule: Returns `true` for main's errors after which the stale value is returned.
    public static func cacheSync(fallback rule: @escaping @Sendable (any Error) -> Bool) -> Self {
        Self(first: .cache, asksMainOn: .all, writesBack: true, staleValues: .servedWhenMainFails(rule))
    }
}
