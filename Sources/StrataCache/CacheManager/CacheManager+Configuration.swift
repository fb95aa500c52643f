import Foundation
import Strata

extension CacheManager {
    /// Where a ``CacheManager`` keeps its references, how many, and for how long they are valid: Beagle's
    /// `CustomCache.Config` with the folder, the memory layer and the clock added.
    public struct Configuration: Sendable {
        /// The folder of the persistent store; one live manager per folder.
        public var folder: URL

        /// The most references kept on disk, least recently used evicted first: 150 by default.
        public var diskMaximumCapacity: Int

        /// The most bytes the references take on disk (their files: data, hash and dates as JSON, so a body is about
        /// a third larger than its bytes), least recently used evicted first: 150 MiB by default. A reference
        /// whose file alone would be larger is not written (reported to ``diagnostics``; an older one on disk under
        /// its identifier is removed): it lives in memory only, while the memory layer keeps it — and not at all when
        /// it is also over ``memoryMaximumSize`` (with the defaults, a disk-refused reference, over about 112 MiB of
        /// data, always is): the next ``CacheManager/getReference(identifiedBy:)`` then returns `nil`.
        public var diskMaximumSize: Int

        /// The most references kept in memory in front of the disk: 15 by default.
        public var memoryMaximumCapacity: Int

        /// The most bytes of reference data kept in memory, least recently used evicted first: 64 MiB by default.
        /// A reference larger than this is read from disk each time; a server's bodies (up to the HTTP client's
        /// `maximumResponseSize` each) would otherwise stay in memory, `memoryMaximumCapacity` of them.
        public var memoryMaximumSize: Int

        /// The validity in seconds of a reference without its own ``CacheReference/maxAge``: 300 by default.
        public var cacheMaxAge: Int

        /// The clock ``CacheManager/isValid(reference:)`` and the stores read.
        public var clock: any WallClock

        /// Receives every error of the persistent store (the protocol's methods do not throw), including
        /// reports of corrupt entries moved aside; `nil` to ignore them.
        public var diagnostics: (@Sendable (StrataError) -> Void)?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - folder: The folder of the persistent store.
        ///   - diskMaximumCapacity: The most references kept on disk.
        ///   - diskMaximumSize: The most bytes the references take on disk.
        ///   - memoryMaximumCapacity: The most references kept in memory.
        ///   - memoryMaximumSize: The most bytes of reference data kept in memory.
        ///   - cacheMaxAge: The default validity in seconds.
        ///   - clock: The clock.
        ///   - diagnostics: Receives the persistent store's errors.
        public init(
            folder: URL,
            diskMaximumCapacity: Int = 150,
            diskMaximumSize: Int = 150 << 20,
            memoryMaximumCapacity: Int = 15,
            memoryMaximumSize: Int = 64 << 20,
            cacheMaxAge: Int = 300,
            clock: any WallClock = SystemClock(),
            diagnostics: (@Sendable (StrataError) -> Void)? = nil
        ) {
            self.folder = folder
            self.diskMaximumCapacity = diskMaximumCapacity
            self.diskMaximumSize = diskMaximumSize
            self.memoryMaximumCapacity = memoryMaximumCapacity
            self.memoryMaximumSize = memoryMaximumSize
            self.cacheMaxAge = cacheMaxAge
            self.clock = clock
            self.diagnostics = diagnostics
        }
    }
}
