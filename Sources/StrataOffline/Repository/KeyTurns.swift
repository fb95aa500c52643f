/// Lets the writes of one key take their turns one after another, first come first served, while those of other
/// keys go alongside: a write takes the key's turn before it is numbered in the outbox and gives it back once the
/// cache has its value, so the cache takes a key's values in the order of their numbers — the order main gets them.
actor KeyTurns {
    /// A writer waiting for a turn, resumed with whether it took it.
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// The keys whose turn is taken, each with the writers waiting for it, first come first served.
    private var waiting: [String: [Waiter]] = [:]
    /// The id of the last waiter.
    private var lastWaiter: UInt64 = 0

    /// Takes the turn of `key`, once the writers before have given it back.
    func take(_ key: String) async {
        _ = await take(key, cancellable: false)
    }

    /// Takes the turn of `key` as ``take(_:)`` does, unless the calling task is cancelled while it waits: then it
    /// takes nothing and stops waiting at once, and the writers behind it keep their places. A write held back by an
    /// earlier write of its key that hangs (a stalled disk, a cache that waits) never holds a caller that gave up. A
    /// free turn is taken without waiting, cancelled or not.
    ///
    /// - Returns: Whether the turn was taken: `false` when the task was cancelled while it waited.
    func takeUnlessCancelled(_ key: String) async -> Bool {
        await take(key, cancellable: true)
    }

    /// Takes the turn of `key`, waiting behind the writers before; `cancellable`: unless the task is cancelled.
    private func take(_ key: String, cancellable: Bool) async -> Bool {
        guard waiting[key] != nil else {
            waiting[key] = []
            return true
        }
        lastWaiter &+= 1
        let id = lastWaiter
        guard cancellable else {
            return await withCheckedContinuation { waiting[key, default: []].append(Waiter(id: id, continuation: $0)) }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // A task cancelled before it waits: its handler, which already ran, found no waiter to take back.
                guard !Task.isCancelled else { return continuation.resume(returning: false) }
                waiting[key, default: []].append(Waiter(id: id, continuation: continuation))
            }
        } onCancel: {
            Task { await self.withdraw(id, from: key) }
        }
    }

    /// Takes back the waiter `id` of `key`, if it still waits: it takes nothing.
    private func withdraw(_ id: UInt64, from key: String) {
        guard let index = waiting[key]?.firstIndex(where: { $0.id == id }) else { return }
        waiting[key]?.remove(at: index).continuation.resume(returning: false)
    }

    /// Gives the turn of `key` to the next writer waiting for it, if any.
    func giveBack(_ key: String) {
        guard var writers = waiting[key], !writers.isEmpty else {
            waiting[key] = nil
            return
        }
        let next = writers.removeFirst()
        waiting[key] = writers
        next.continuation.resume(returning: true)
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
