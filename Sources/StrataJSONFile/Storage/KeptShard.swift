import Strata
import StrataStorage

/// A shard folder a JSON store keeps open, under one allowance for the whole process; its slot is given back
/// when it goes.
///
/// Each kept shard saves a read or a write the `openat` and `close` of its folder, but holds a descriptor. The
/// allowance (``JSONFileStorage/maximumOpenShards``) is shared by every JSON store in the process, so that many
/// stores never take more descriptors than one (the test suite opened over 1,300 with a budget per store), and an
/// app's own descriptors stay below 1,024, where `select` still works.
final class KeptShard {
    /// The open shard folder.
    let folder: StoreFolder

    private static let slotsInUse = Locked(0)

    /// Keeps `folder` if the process-wide allowance has a slot left; `nil` when it does not (the caller uses
    /// the folder once and lets it close).
    init?(_ folder: StoreFolder) {
        let taken = Self.slotsInUse.withLock { used in
            guard used < JSONFileStorage.maximumOpenShards else { return false }
            used += 1
            return true
        }
        guard taken else { return nil }
        self.folder = folder
    }

    deinit {
        Self.slotsInUse.withLock { $0 -= 1 }
    }
}
