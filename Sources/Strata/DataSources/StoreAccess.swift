/// How a store folder is opened by something that inspects it rather than serves from it (the `strata` tool,
/// an app's diagnostics screen).
public enum StoreAccess: Sendable, Hashable {
    /// Reads only: no file is created, renamed, repaired or removed, the owner lock is shared (so a live store
    /// is not disturbed), and read-only media work.
    case readOnly

    /// May remove entries and repair damage, under the store's exclusive owner lock.
    case readWrite
}
