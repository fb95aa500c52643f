import Foundation
import Strata

/// The dates and tags an entry is written or renewed with, as the index and the entry file keep them.
struct EntryStamp {
    /// When the value was written, in seconds since 1970.
    var storedAt: Double

    /// The entry's own maximum age in seconds; `nil` defers to the configuration's time to live.
    var maxAge: Double?

    /// When the value stops being fresh, in seconds since 1970; `nil` when its source gave none.
    var freshUntil: Double? = nil

    /// The entry's tags, sorted.
    var tags: [String] = []
}

extension EntryStamp {
    /// The stamp of `metadata`: its stored date (`nil`: `now`), its expiry as a maximum age from that date, its
    /// freshness date and its tags.
    ///
    /// - Parameters:
    ///   - metadata: The entry's metadata.
    ///   - now: The date of the write or renewal.
    init(_ metadata: EntryMetadata, now: Date) {
        let storedAt = metadata.storedAt ?? now
        self.init(
            storedAt: storedAt.timeIntervalSince1970,
            maxAge: metadata.expiresAt.map { $0.timeIntervalSince(storedAt) },
            freshUntil: metadata.freshUntil?.timeIntervalSince1970,
            tags: metadata.tags.sorted()
        )
    }
}
