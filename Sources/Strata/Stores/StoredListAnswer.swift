import Foundation

/// What a ``KeyValueStore`` remembers of the list answer it was given, for the list rule: whether one was
/// stored, and until when it holds.
///
/// A store keeps one, records an answer when `putAll(_:in: AllObjectsQuery())` stores one, and forgets it in
/// ``KeyValueStore/removeAll()`` and whenever it drops an entry on its own (an eviction, a trim, an expiry), since
/// the answer is then no longer whole; an entry written or renewed meanwhile with a shorter life than the answer's
/// shortens the answer's (``noteEntry(forKey:expiringAt:)``). The keys the store held when the answer came and the
/// answer did not list (values main no longer has) are left out of the listing it serves, until written again. It
/// lives in memory only.
public final class StoredListAnswer: Sendable {
    /// A recorded answer.
    private struct Answer {
        /// When the answer expires; `nil` for never.
        var expiresAt: Date?
        /// The keys held when the answer was recorded that it did not list, and not written since.
        var leftOut: Set<String>
    }

    private let clock: any WallClock
    private let timeToLive: Duration?
    private let answer = Locked<Answer?>(nil)
    /// 1 while the recorded answer leaves keys out, moved under the lock: a write that reads 0 and brings no expiry
    /// has nothing to note, and takes no lock.
    private let leavesKeysOut = AtomicCount()

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
    /// - Parameters:
    ///   - expiresAt: The earliest expiry of the answer's entries, if they carry one.
    ///   - leftOut: The keys the store holds that the answer does not list: values main no longer has, which the
    ///     listings it serves leave out until they are written again.
    public func record(expiresAt: Date? = nil, leavingOut leftOut: Set<String> = []) {
        let byTimeToLive = timeToLive.map { clock.now().addingTimeInterval($0.timeInterval) }
        let expiry = [expiresAt, byTimeToLive].compactMap { $0 }.min()
        answer.withLock { answer in
            setLeavingKeysOut(!leftOut.isEmpty, after: answer)
            answer = Answer(expiresAt: expiry, leftOut: leftOut)
        }
    }

    /// Moves ``leavesKeysOut`` to say whether the answer now leaves keys out; called under the lock with the answer
    /// before.
    private func setLeavingKeysOut(_ leaves: Bool, after before: Answer?) {
        let left = before.map { !$0.leftOut.isEmpty } ?? false
        if leaves != left { leavesKeysOut.add(leaves ? 1 : -1) }
    }

    /// The keys of `keys` a listing served from the answer holds: all but those it left out.
    ///
    /// - Parameter keys: The keys the store holds, in their order.
    /// - Returns: Those keys, in the same order, without the ones the answer left out.
    public func listed(_ keys: [String]) -> [String] {
        let leftOut = answer.withLock { $0?.leftOut ?? [] }
        return leftOut.isEmpty ? keys : keys.filter { !leftOut.contains($0) }
    }

    /// Lowers a recorded answer's expiry to `expiresAt` when that comes first: a store calls it for every entry it
    /// writes or renews. An entry written while the answer is stored with a shorter life than the answer's (a put of
    /// one key with its own time to live, a renewal) expires on its own, out of every listing: the answer, no longer
    /// whole, must not outlive it.
    ///
    /// An entry written again is listed again, though the answer left it out.
    ///
    /// - Parameters:
    ///   - key: The entry's key.
    ///   - expiresAt: When the entry written expires; `nil` for never.
    public func noteEntry(forKey key: String, expiringAt expiresAt: Date?) {
        if expiresAt == nil, leavesKeysOut.value == 0 { return }
        answer.withLock { answer in
            guard let before = answer else { return }
            if !before.leftOut.isEmpty, answer?.leftOut.remove(key) != nil, answer?.leftOut.isEmpty == true {
                setLeavingKeysOut(false, after: before)
            }
            guard let expiresAt else { return }
            if let current = answer?.expiresAt, current <= expiresAt { return }
            answer?.expiresAt = expiresAt
        }
    }

    /// Forgets any recorded answer.
    public func forget() {
        answer.withLock { answer in
            setLeavingKeysOut(false, after: answer)
            answer = nil
        }
    }

    /// Whether a live answer is recorded.
    public var isStored: Bool {
        guard let stored = answer.withLock({ $0 }) else { return false }
        guard let expiresAt = stored.expiresAt else { return true }
        return clock.now() < expiresAt
    }
}
