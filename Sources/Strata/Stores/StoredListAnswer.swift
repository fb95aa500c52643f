import Foundation

/// What a ``KeyValueStore`` remembers of the list answer it was given, for the list rule: whether one was
/// stored, and until when it holds.
///
/// A store keeps one, records an answer when `putAll(_:in: AllObjectsQuery())` stores one, and forgets it in
/// ``KeyValueStore/removeAll()`` and whenever it drops an entry on its own (an eviction, a trim, an expiry), since
/// the answer is then no longer whole; an entry written or renewed meanwhile with a shorter life than the answer's
/// shortens the answer's (``noteEntry(expiringAt:)``). It lives in memory only.
public final class StoredListAnswer: Sendable {
    private let clock: any WallClock
    private let timeToLive: Duration?
    /// `nil`: no answer; `.some(nil)`: an answer that does not expire; `.some(date)`: one that expires then.
    private let answer = Locked<Date??>(nil)

    /// Creates an empty record.
    ///
    /// - Parameters:
    ///   - clock: The store's clock.
    ///   - timeToLive: The store's time to live; a recorded answer expires when entries written with it would.
    public init(clock: any WallClock, timeToLive: Duration?) {
        self.clock = clock
        self.timeToLive = timeToLive
    }

    /// Records that a list answer was stored now: it expires with the store's time to live, or at
    /// `expiresAt` when that comes first.
    ///
    /// - Parameter expiresAt: The earliest expiry of the answer's entries, if they carry one.
    public func record(expiresAt: Date? = nil) {
        let byTimeToLive = timeToLive.map { clock.now().addingTimeInterval($0.timeInterval) }
        let expiry = [expiresAt, byTimeToLive].compactMap { $0 }.min()
        answer.withLock { $0 = .some(expiry) }
    }

    /// Lowers a recorded answer's expiry to `expiresAt` when that comes first: a store calls it for every entry it
    /// writes or renews. An entry written while the answer is stored with a shorter life than the answer's (a put of
    /// one key with its own time to live, a renewal) expires on its own, out of every listing: the answer, no longer
    /// whole, must not outlive it.
    ///
    /// - Parameter expiresAt: When the entry written expires; `nil` (never) changes nothing.
    public func noteEntry(expiringAt expiresAt: Date?) {
        guard let expiresAt else { return }
        answer.withLock { answer in
            guard let stored = answer else { return }
            if let current = stored, current <= expiresAt { return }
            answer = .some(expiresAt)
        }
    }

    /// Forgets any recorded answer.
    public func forget() {
        answer.withLock { $0 = nil }
    }

    /// Whether a live answer is recorded.
    public var isStored: Bool {
        guard let stored = answer.withLock({ $0 }) else { return false }
        guard let expiresAt = stored else { return true }
        return clock.now() < expiresAt
    }
}
