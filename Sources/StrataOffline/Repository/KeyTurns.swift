/// Lets the writes of one key take their turns one after another, first come first served, while those of other
/// keys go alongside: a write takes the key's turn before it is numbered in the outbox and gives it back once the
/// cache has its value, so the cache takes a key's values in the order of their numbers — the order main gets them.
actor KeyTurns {
    /// The keys whose turn is taken, each with the writers waiting for it, first come first served.
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Takes the turn of `key`, once the writers before have given it back.
    func take(_ key: String) async {
        guard waiting[key] != nil else {
            waiting[key] = []
            return
        }
        await withCheckedContinuation { waiting[key, default: []].append($0) }
    }

    /// Gives the turn of `key` to the next writer waiting for it, if any.
    func giveBack(_ key: String) {
        guard var writers = waiting[key], !writers.isEmpty else {
            waiting[key] = nil
            return
        }
        let next = writers.removeFirst()
        waiting[key] = writers
        next.resume()
    }

    /// How many callers wait for the turn of `key` now (the one that holds it not counted).
    func waitingCount(for key: String) -> Int { waiting[key]?.count ?? 0 }
}

extension OfflineRepository {
    /// Tests only: how many writes of `key` (or drops of it) wait now for the key's turn, held by another: a test
    /// waits for a write to be held so, rather than give it time to get there.
    ///
    /// - Parameter key: The entry's key.
    /// - Returns: The callers waiting, the one that holds the turn not counted.
    package func waitingForTurn(ofKey key: String) async -> Int { await cacheTurns.waitingCount(for: key) }
}
