import Strata

/// Reads as the operation it wraps, but keeps nothing main answers in the cache: for a key whose record the app dropped
/// while a replay sends it, which main may apply after it answered a read (the cache would then keep the older value).
struct UnkeptReadOperation: RepositoryOperation {
    /// The caller's operation.
    let base: any RepositoryOperation

    /// Wraps `base`.
    init(_ base: any RepositoryOperation) { self.base = base }

    /// The caller's operation's name.
    var name: String { base.name }

    /// The caller's operation's plan, its reads writing nothing back: no write-back of main's value, no renewal of a
    /// cached entry main confirmed, no refresh in the background.
    var plan: OperationPlan {
        var plan = base.plan
        plan.read?.writesBack = false
        plan.read?.revalidates = false
        plan.read?.refreshesInBackground = nil
        return plan
    }
}
