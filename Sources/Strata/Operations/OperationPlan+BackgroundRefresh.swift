import struct Foundation.Date

extension OperationPlan {
    /// Stale-while-revalidate (RFC 5861's idea, for any repository): how long after a cached value went stale it is
    /// still returned at once while main is read in the background.
    ///
    /// A read whose cache answers *not valid* returns the stale value (marked stale where the API says so) when
    /// the value went stale less than ``window`` ago, by the date its validator gives
    /// (``Validator/staleSince(_:context:)``, carried by the error as ``StrataError/staleSince``). The repository then reads main in the background, as the plan's step 3 says
    /// (a conditional read for an entry with validators, the write back into the cache), once per query however
    /// many readers are served stale meanwhile, and announces the refreshed value to its streams. A failed refresh
    /// leaves the stale value in the cache; the repository's refresh plugins see the failure
    /// (``CacheRepository/Configuration/refreshPlugins``), no caller does.
    ///
    /// A stale value older than the window, or one whose staleness date nobody knows, is read from main before
    /// answering, as without a window.
    ///
    /// An entry may name its own window (``entryWindow``): an HTTP response's `stale-while-revalidate`, kept with
    /// its cached copy.
    public struct BackgroundRefresh: Sendable {
        /// How long after going stale a value is still returned at once.
        public var window: Duration

        /// The clock that says what time it is (a `ManualClock` in tests).
        public var clock: any WallClock

        /// The window a stale entry names for itself, read from the *not valid* error that carries it
        /// (``StrataError/staleEntry(as:)``); ``window`` applies when it is `nil` or answers `nil`.
        ///
        /// RFC 5861's `stale-while-revalidate` is a response's own: a cache that keeps it with each entry answers
        /// it here, and gives ``window`` `.zero` so that an entry without one is read from main first.
        public var entryWindow: (@Sendable (_ miss: StrataError) -> Duration?)?

        /// Creates a stale-while-revalidate window.
        ///
        /// - Parameters:
        ///   - window: How long after going stale a value is still returned at once.
        ///   - clock: The clock that says what time it is.
        ///   - entryWindow: The window a stale entry names for itself, if any (``entryWindow``).
        public init(
            window: Duration,
            clock: any WallClock = SystemClock(),
            entryWindow: (@Sendable (_ miss: StrataError) -> Duration?)? = nil
        ) {
            self.window = window
            self.clock = clock
            self.entryWindow = entryWindow
        }

        /// Whether a value that went stale at `staleSince` is inside the window now; `false` when the date is
        /// unknown.
        ///
        /// - Parameter staleSince: When the value stopped being valid.
        public func contains(staleSince: Date?) -> Bool {
            isInside(window, staleSince: staleSince)
        }

        /// Whether the stale value a *not valid* error carries is inside its window now: the entry's own
        /// (``entryWindow``) or ``window``, from the error's ``StrataError/staleSince``.
        ///
        /// - Parameter miss: The cache's *not valid* error.
        public func contains(_ miss: StrataError) -> Bool {
            guard miss.staleSince != nil else { return false }
            return isInside(entryWindow?(miss) ?? window, staleSince: miss.staleSince)
        }

        /// Whether a value that went stale at `staleSince` is less than `window` past it now.
        private func isInside(_ window: Duration, staleSince: Date?) -> Bool {
            guard let staleSince else { return false }
            return clock.now() < staleSince.addingTimeInterval(window.timeInterval)
        }
    }
}

extension OperationPlan.Read {
    /// As ``cacheSync``, but a value stale for less than `window` is returned at once and refreshed from main in
    /// the background (``OperationPlan/BackgroundRefresh``).
    ///
    /// - Parameters:
    ///   - window: How long after going stale a value is still returned at once.
    ///   - clock: The clock that says what time it is.
    public static func cacheSync(staleWhileRevalidate window: Duration, clock: any WallClock = SystemClock()) -> Self {
        Self(
            first: .cache,
            asksMainOn: .all,
            writesBack: true,
            refreshesInBackground: OperationPlan.BackgroundRefresh(window: window, clock: clock)
        )
    }
}
