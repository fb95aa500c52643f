import Strata

/// Who holds an ``Outbox``: the claims handed out and the one that holds it now.
struct ServiceClaims: Sendable {
    /// The number of the next claim.
    var next: UInt64 = 1
    /// The claim that holds the outbox; `nil` when no repository serves it.
    var holder: UInt64?
}

extension Outbox {
    /// Claims the outbox for one repository; the claim's number, or `nil` while another repository holds it.
    ///
    /// Two repositories replaying one outbox would send its records twice, each from its own timer, and number
    /// their cache writes in turns the other never sees.
    nonisolated func claimService() -> UInt64? {
        service.withLock { claims in
            guard claims.holder == nil else { return nil }
            defer { claims.next &+= 1 }
            claims.holder = claims.next
            return claims.next
        }
    }

    /// Gives the claim numbered `claim` back; nothing when it no longer holds the outbox.
    nonisolated func releaseService(_ claim: UInt64) {
        service.withLock { claims in
            if claims.holder == claim { claims.holder = nil }
        }
    }

    /// Throws ``notServed`` unless the claim numbered `claim` holds the outbox: the repository that asks could not
    /// claim it, or gave it back (``OfflineRepository/close()``).
    nonisolated func checkService(_ claim: UInt64?) throws {
        guard let claim, service.withLock({ $0.holder == claim }) else { throw notServed }
    }

    /// The ``Strata/StrataError/Code/alreadyInUse`` error of a write through a repository that does not hold the
    /// outbox (any more).
    nonisolated var notServed: StrataError {
        StrataError(
            .alreadyInUse,
            "This OfflineRepository does not hold the outbox in \(folder.path): another repository serves it, "
                + "or this one was closed; give each repository its own outbox, or close() the other one first"
        )
    }
}

/// The keys with queued records, and the repository told when one comes or goes.
struct QueuedKeys: Sendable {
    /// Every key with a record in the outbox to replay (one not set aside).
    var keys: Set<String> = []
    /// The claim of the repository watching, and what it is told: a key and whether it is now queued.
    var watcher: (claim: UInt64, tell: @Sendable (String, Bool) -> Void)?
    /// The claim of the repository watching drops, and what it is told: the keys of the records the app drops,
    /// before and after.
    var dropWatcher: DropWatcher?
}

/// What the repository serving an outbox is told of the app's drops (``Outbox/drop(_:)``, ``Outbox/dropAll()``).
struct DropWatcher: Sendable {
    /// The repository's claim on the outbox.
    var claim: UInt64
    /// Told the keys of the records to replay about to be dropped, sorted, before the outbox changes.
    var willDrop: @Sendable (_ keys: [String]) async -> Void
    /// Told the same keys once the drop is done (or failed), with the keys of the records to replay it forgot: those
    /// and any record added meanwhile.
    var didDrop: @Sendable (_ keys: [String], _ forgotten: [String]) async -> Void
}

extension Outbox {
    /// Tells `watcher` of every key queued now and, until ``stopWatchingQueuedKeys(claim:)``, of each key whose first
    /// record is queued (`true`) or whose last one leaves (`false`): what lets the repository that serves the outbox,
    /// by `claim`, keep main's answers, older than the writes waiting, out of its cache.
    ///
    /// The watcher is told under the outbox's lock of the keys, so it sees every change once, in order; it must
    /// return quickly and not call the outbox.
    nonisolated func watchQueuedKeys(claim: UInt64, _ watcher: @escaping @Sendable (String, Bool) -> Void) {
        queuedKeys.withLock { state in
            state.watcher = (claim, watcher)
            for key in state.keys { watcher(key, true) }
        }
    }

    /// Tells the watcher of `claim` that no key is queued any more for it, and stops telling it; nothing when another
    /// repository watches. Stops telling it of drops too (``watchDrops(claim:_:)``).
    nonisolated func stopWatchingQueuedKeys(claim: UInt64) {
        queuedKeys.withLock { state in
            if state.dropWatcher?.claim == claim { state.dropWatcher = nil }
            guard let watcher = state.watcher, watcher.claim == claim else { return }
            for key in state.keys { watcher.tell(key, false) }
            state.watcher = nil
        }
    }

    /// Tells `watcher`, until ``stopWatchingQueuedKeys(claim:)``, of the keys of the records the app drops
    /// (``drop(_:)``, ``dropAll()``), before the outbox changes and after, waiting for it each time: what lets the
    /// repository that serves the outbox take the dropped writes' values out of its cache, in the keys' turns.
    nonisolated func watchDrops(_ watcher: DropWatcher) {
        queuedKeys.withLock { $0.dropWatcher = watcher }
    }

    /// Runs `drop`, the app's drop of the records of `keys`, between the drop watcher's two calls, if one watches.
    ///
    /// - Parameters:
    ///   - keys: The keys of the records to replay that `drop` is to remove (not those set aside: the cache holds no
    ///     value of theirs).
    ///   - drop: Removes the records; adds the keys of the records to replay it forgot to its argument, also when it
    ///     throws.
    func droppingRecords(of keys: [String], _ drop: (inout [String]) async throws -> Void) async throws {
        let watcher = queuedKeys.withLock { $0.dropWatcher }
        let keys = Set(keys).sorted()
        await watcher?.willDrop(keys)
        var forgotten: [String] = []
        do {
            try await drop(&forgotten)
        } catch {
            await watcher?.didDrop(keys, forgotten)
            throw error
        }
        await watcher?.didDrop(keys, forgotten)
    }

    /// Records that `key` now has records to replay or none, telling the watcher when that changed.
    func noteQueued(_ key: String, _ isQueued: Bool) {
        queuedKeys.withLock { state in
            let changed = isQueued ? state.keys.insert(key).inserted : state.keys.remove(key) != nil
            if changed { state.watcher?.tell(key, isQueued) }
        }
    }
}
