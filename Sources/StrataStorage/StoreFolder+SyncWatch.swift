import Strata

/// A test seam: the flushes of the folders a test watches, counted, since a folder's `fsync` leaves nothing a test
/// could look at afterwards. Folders are watched by identity, so tests that run at once never count each other's.
extension StoreFolder {
    private static let watchedSyncs = Locked<[FolderIdentity: Int]>([:])

    /// Starts counting the successful ``sync()`` calls on the folder `identity` names, from zero.
    ///
    /// - Parameter identity: The folder's identity; any ``StoreFolder`` open on it counts.
    package static func watchSyncs(of identity: FolderIdentity) {
        watchedSyncs.withLock { $0[identity] = 0 }
    }

    /// Stops counting the flushes of `identity`; returns how many there were, `nil` when it was not watched.
    ///
    /// - Parameter identity: The folder's identity.
    @discardableResult
    package static func unwatchSyncs(of identity: FolderIdentity) -> Int? {
        watchedSyncs.withLock { $0.removeValue(forKey: identity) }
    }

    /// Counts a flush of this folder when a test watches it.
    func countSync() {
        Self.watchedSyncs.withLock { watched in
            guard !watched.isEmpty else { return }
            watched[identity]? += 1
        }
    }
}
