import Strata
import StrataStorage

/// A test seam: a hook a test sets for a store's folder, run at the moment of a metadata renewal a crash could
/// interrupt (after its first write, before the step that completes it), so the test can take the folder's state
/// there as a crash would leave it.
extension FileDataSource {
    private static let renewalHooks = Locked<[FolderIdentity: @Sendable () -> Void]>([:])

    /// Runs `hook` in the middle of every renewal of the store whose folder is `identity`; `nil` stops it.
    ///
    /// - Parameters:
    ///   - identity: The store folder's identity.
    ///   - hook: What to run between the renewal's steps.
    package static func watchRenewals(of identity: FolderIdentity, _ hook: (@Sendable () -> Void)?) {
        renewalHooks.withLock { $0[identity] = hook }
    }

    /// Runs the hook a test set for this store's folder, if any.
    func renewalMidway() {
        let hook = Self.renewalHooks.withLock { hooks in hooks.isEmpty ? nil : hooks[folder.identity] }
        hook?()
    }
}
