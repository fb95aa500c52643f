import Strata

/// The folders of the live stores in this process, so that a second store on one folder is refused.
///
/// The advisory lock file guards against other processes; this set guards within one, where a second
/// `flock` on a new descriptor would also fail but without telling which store holds the folder.
enum StoreRegistry {
    private static let folders = Locked<Set<String>>([])

    /// Claims a folder; false when a live store already holds it.
    static func claim(_ folder: String) -> Bool {
        folders.withLock { $0.insert(folder).inserted }
    }

    /// Frees a folder claimed by a store that is going away.
    static func release(_ folder: String) {
        _ = folders.withLock { $0.remove(folder) }
    }
}
