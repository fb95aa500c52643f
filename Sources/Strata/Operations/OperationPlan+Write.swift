extension OperationPlan {
    /// How a write (`put`, `putAll`) or a `delete` goes: the source written first and whether the other one
    /// follows.
    ///
    /// The second write happens only after the first succeeded, and it is given the first source's returned
    /// value. A cache write (or delete) after main's follows the repository's ``CacheRepository/CacheWritePolicy``;
    /// a main write after the cache's throws main's error, a ``StrataError`` saying the write may have taken effect
    /// (``StrataError/mayHaveTakenEffect``: the cache holds it); an error of another type is thrown as it is, with no
    /// such flag. Either way the repository announces a write that
    /// happened, even when the next one fails. A main write the cache follows that fails but may have taken effect
    /// (its caller's task was cancelled while main had it, or main's error says so) throws, removes the cache's copy
    /// and is announced as a write (streams read again); one that surely failed at main is not announced.
    public struct Write: Sendable, Hashable {
        /// The source written first.
        public var first: Source

        /// Whether the other source is written after the first succeeded.
        public var thenOther: Bool

        /// Creates a write plan.
        ///
        /// - Parameters:
        ///   - first: The source written first.
        ///   - thenOther: Whether the other source is written after it.
        public init(first: Source, thenOther: Bool) {
            self.first = first
            self.thenOther = thenOther
        }

        /// Main only.
        public static var main: Self { Self(first: .main, thenOther: false) }

        /// Main, then the cache with main's returned value.
        public static var mainSync: Self { Self(first: .main, thenOther: true) }

        /// The cache only.
        public static var cache: Self { Self(first: .cache, thenOther: false) }

        /// The cache, then main with the cache's returned value.
        public static var cacheSync: Self { Self(first: .cache, thenOther: true) }
    }
}
