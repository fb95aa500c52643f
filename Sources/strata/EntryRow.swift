import Foundation
import StrataOffline

/// One entry of either kind of store, as the tool shows it.
struct EntryRow {
    /// The key; `nil` when the file is too damaged to tell.
    var key: String?
    /// The entry's file, relative to the store's folder.
    var file: String
    /// File store: the data's size. JSON-file store: the entry file's size.
    var size: Int
    var created: Date?
    var expiresAt: Date?
    var lastAccess: Date?
    var eTag: String?
    var lastModified: String?
    /// The least-recently-used order: higher is more recent.
    var recency: UInt64
    /// What is wrong with the entry; `nil` when sound.
    var problem: String?
    /// An offline outbox's record: the queued write, its attempts and last error.
    var write: PendingWrite?

    func isExpired(at now: Date) -> Bool {
        guard let expiresAt else { return false }
        return now >= expiresAt
    }
}
