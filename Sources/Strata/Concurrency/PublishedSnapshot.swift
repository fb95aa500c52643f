import CStrataAtomics

/// An immutable value that readers take without a lock and a writer replaces under one: a table read on every call
/// and grown rarely, such as a plugin's series of metrics.
///
/// A reader loads the current snapshot's address (acquire) and uses it without retaining it. A writer builds the
/// next snapshot under a lock and publishes it (release); the snapshots it replaced stay alive until this value is
/// freed, because a reader may still be using one. Fit for a table that grows a few dozen times in its life; a
/// snapshot that shares the one it replaces (a persistent list) keeps the retired ones at no extra memory.
@usableFromInline
package final class PublishedSnapshot<Snapshot: AnyObject & Sendable>: @unchecked Sendable {
    // @unchecked Sendable is sound: `current` is only read and written by the atomic operations, and it always
    // holds the address of a snapshot that `kept` retains; `kept` is only touched under its lock.
    @usableFromInline let current: UnsafeMutablePointer<Int>
    @usableFromInline let kept: Locked<(latest: Snapshot, retired: [Snapshot])>

    /// Publishes `initial`.
    package init(_ initial: Snapshot) {
        kept = Locked((initial, []))
        current = .allocate(capacity: 1)
        current.initialize(to: Self.address(of: initial))
    }

    deinit {
        current.deallocate()
    }

    /// Runs `body` with the current snapshot, without a lock.
    @inlinable
    package func read<Result>(_ body: (Snapshot) throws -> Result) rethrows -> Result {
        let address = strata_atomic_load_acquire(current)
        // `kept` retains every snapshot ever published, so the address is alive for as long as `self` is. It is
        // never zero (`init` publishes one); were it, the lock's copy is as current.
        guard let pointer = UnsafeRawPointer(bitPattern: address) else {
            return try body(kept.withLock { $0.latest })
        }
        return try Unmanaged<Snapshot>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// Replaces the snapshot, under a lock: `update` gets the current one and returns the next, or `nil` to keep it
    /// (another writer already made the change); what `update` returns besides is returned.
    package func update<Result>(_ update: (Snapshot) -> (next: Snapshot?, result: Result)) -> Result {
        kept.withLock { kept in
            let (next, result) = update(kept.latest)
            if let next {
                kept.retired.append(kept.latest)
                kept.latest = next
                strata_atomic_store_release(current, Self.address(of: next))
            }
            return result
        }
    }

    /// The address of `snapshot`, as the word `current` holds; not retained (``kept`` does).
    private static func address(of snapshot: Snapshot) -> Int {
        Int(bitPattern: Unmanaged.passUnretained(snapshot).toOpaque())
    }
}
