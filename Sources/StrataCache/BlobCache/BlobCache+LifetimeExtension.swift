import Foundation
import Strata

extension BlobCache {
    /// When a layer of a ``BlobCache`` pushes back the expiry of an entry it serves.
    ///
    /// A policy applies on every hit of a fresh entry; an entry that has already expired is never extended
    /// (it is served again only after the next layer or the network supplies it). "The lifetime" is the
    /// lifetime the entry was stored with: the response's HTTP freshness or the layer's initial lifetime.
    public enum LifetimeExtension: Sendable, Hashable {
        /// Entries expire when their lifetime ends, however often they are read.
        case none

        /// Every hit keeps the entry for at least `amount` more: the expiry becomes the later of the current
        /// expiry and now + `amount` (a sliding window).
        case onAccess(by: Duration)

        /// A hit while at least `share` (0…1) of the lifetime remains renews the entry for a whole lifetime
        /// from now; later hits leave it to expire.
        case whileRemaining(share: Double)

        /// A hit when at most `within` remains before expiry renews the entry for a whole lifetime from now.
        case whenNearlyExpired(within: Duration)

        /// The new expiry of an entry read at `now`, or `nil` when the policy leaves it as it is.
        ///
        /// - Parameters:
        ///   - expiresAt: The entry's current expiry; it must be later than `now`.
        ///   - lifetime: The entry's lifetime.
        ///   - now: The time of the read.
        /// - Returns: A later expiry, or `nil`.
        public func extendedExpiry(expiresAt: Date, lifetime: Duration, now: Date) -> Date? {
            guard expiresAt > now else { return nil }
            let remaining = expiresAt.timeIntervalSince(now)
            let candidate: Date
            switch self {
            case .none:
                return nil
            case .onAccess(let amount):
                candidate = now.addingTimeInterval(amount.timeInterval)
            case .whileRemaining(let share):
                guard remaining >= min(max(share, 0), 1) * lifetime.timeInterval else { return nil }
                candidate = now.addingTimeInterval(lifetime.timeInterval)
            case .whenNearlyExpired(let window):
                guard remaining <= window.timeInterval else { return nil }
                candidate = now.addingTimeInterval(lifetime.timeInterval)
            }
            return candidate > expiresAt ? candidate : nil
        }
    }

    /// What cleaning a layer of a ``BlobCache`` removes.
    public enum CleaningRule: Sendable, Hashable {
        /// Every entry, fresh or not: the ephemeral layer's default (memory pressure).
        case all
        /// Only entries whose lifetime has ended: the persistent layer's default (app termination). A persistent
        /// blob's lifetime ends when it can no longer be served, fresh or stale (``BlobCache/cleanPersistent()``).
        case expiredOnly
    }

    /// The layer that answered a fetch.
    @available(*, deprecated, renamed: "DataOrigin", message: "Fetched.origin is a DataOrigin")
    public enum Layer: String, Sendable, Hashable, CustomStringConvertible {
        /// The in-memory layer.
        case ephemeral
        /// The on-disk layer, with a fresh entry.
        case persistent
        /// A download.
        case network
        /// The on-disk layer, after the server confirmed a stale entry with `304 Not Modified`.
        case revalidated
        /// The on-disk layer, serving a stale entry because the network failed (see
        /// ``Configuration/servesStaleOnError``).
        case stale

        /// The raw value.
        public var description: String { rawValue }

        /// The same layer as a `DataOrigin`: `.memory`, `.file`, `.network`, `.revalidated` or `.stale`.
        public var origin: DataOrigin {
            switch self {
            case .ephemeral: .memory
            case .persistent: .file
            case .network: .network
            case .revalidated: .revalidated
            case .stale: .stale
            }
        }

        /// The layer of an origin, or `nil` for one no layer names.
        ///
        /// - Parameter origin: The origin.
        public init?(_ origin: DataOrigin) {
            guard let layer = Self.allLayers.first(where: { $0.origin == origin }) else { return nil }
            self = layer
        }

        private static let allLayers: [Layer] = [.ephemeral, .persistent, .network, .revalidated, .stale]
    }
}
