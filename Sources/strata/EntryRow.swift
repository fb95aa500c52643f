import Foundation
import StrataJSONFile
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
    /// Whether ``problem`` is damage, which `verify --repair` clears: `false` for an entry the store itself leaves as
    /// it is (a file store's entry this user cannot read, or one a later Strata wrote), which no repair touches.
    var isDamaged = true
    /// An offline outbox's record: the queued write, its attempts and last error.
    var write: PendingWrite?
    /// A JSON-file store's entry as its inspector reported it: a removal checks that the entry is still this one.
    var reported: JSONFileStoreEntry?

    /// How the tool names the entry where its key cannot be shown: `(damaged) <file>`, or `(unreadable) <file>` for
    /// one whose problem is no damage.
    var unreadableLabel: String { "\(isDamaged ? "(damaged)" : "(unreadable)") \(file)" }

    func isExpired(at now: Date) -> Bool {
        guard let expiresAt else { return false }
        return now >= expiresAt
    }
}

extension Sequence where Element == EntryRow {
    /// The rows' sizes added up, saturating at `Int.max`: a size is what the file system says of a file, and a sparse
    /// file planted in a store may claim exabytes (two of them overflowed the sum, and the tool trapped).
    var totalSize: Int {
        reduce(0) { total, row in
            let (sum, overflow) = total.addingReportingOverflow(row.size)
            return overflow ? .max : sum
        }
    }
}
