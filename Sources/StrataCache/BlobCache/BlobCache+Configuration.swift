import Foundation
import Strata
import StrataNetwork

extension BlobCache {
    /// The layers of a ``BlobCache``, its stale-on-error policy and its clock.
    ///
    /// ```swift
    /// let configuration = BlobCache.Configuration(
    ///     ephemeral: .init(countLimit: 200, initialLifetime: .seconds(60), lifetimeExtension: .onAccess(by: .seconds(60))),
    ///     persistent: .init(identifier: "images", maxSize: 100 << 20))
    /// ```
    public struct Configuration: Sendable {
        /// The in-memory layer.
        public var ephemeral: EphemeralLayer

        /// The on-disk layer.
        public var persistent: PersistentLayer

        /// Whether a stale on-disk blob is served when the network fails (a transport error, or a 500, 502, 503
        /// or 504); off by default.
        ///
        /// A response's `stale-if-error` (RFC 5861) decides for its own blob whatever this says: served that
        /// way until the window ends, and not after. `must-revalidate` or `no-cache` forbid it.
        public var servesStaleOnError: Bool

        /// The clock for lifetimes, shared by both layers.
        public var clock: any WallClock

        /// What kind of HTTP cache the blobs' freshness is computed for (`HTTPFreshness` of StrataNetwork): a
        /// private cache without heuristics by default, which ignores `s-maxage`.
        public var freshnessPolicy: HTTPFreshness.Policy

        /// Plugins that see every layer's calls — the memory, file and network tiers of the cache's repository
        /// chain, each under its name (`memory`, `file`, `network`); none by default.
        ///
        /// With plugins, a memory hit also goes through the chain (so they see it), which makes it slower.
        public var plugins: [any StrataPlugin]

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - ephemeral: The in-memory layer.
        ///   - persistent: The on-disk layer.
        ///   - servesStaleOnError: Whether a stale on-disk blob is served when the network fails.
        ///   - clock: The clock for lifetimes.
        ///   - freshnessPolicy: What kind of HTTP cache the freshness is computed for.
        ///   - plugins: Plugins that see every layer's calls.
        public init(
            ephemeral: EphemeralLayer = EphemeralLayer(),
            persistent: PersistentLayer = PersistentLayer(),
            servesStaleOnError: Bool = false,
            clock: any WallClock = SystemClock(),
            freshnessPolicy: HTTPFreshness.Policy = .privateCache,
            plugins: [any StrataPlugin] = []
        ) {
            self.plugins = plugins
            self.ephemeral = ephemeral
            self.persistent = persistent
            self.servesStaleOnError = servesStaleOnError
            self.clock = clock
            self.freshnessPolicy = freshnessPolicy
        }
    }
}
