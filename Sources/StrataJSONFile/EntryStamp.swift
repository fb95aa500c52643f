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

    /// When the entry expires by its own maximum age; `nil` when it has none (the configuration's time to live, from
    /// its stored date, applies).
    var expiresAt: Date? { maxAge.map { Date(timeIntervalSince1970: storedAt + $0) } }
}

extension EntryStamp {
    /// The stamp of `metadata`: its stored date (`nil`: `now`), its expiry as a maximum age from that date (the
    /// store's time to live counts from `now`, ``Strata/EntryMetadata/expiry(timeToLive:now:)``: an entry dated
    /// otherwise gets the age that makes it so, else it defers to the configuration's), its freshness date and its
    /// tags.
    ///
    /// The store keeps no flag for an entry that must never be served stale
    /// (``Strata/EntryMetadata/forbidsServingStale``): such an entry expires at its freshness date (at once without
    /// one), so that it is a miss, never a stale value, past it.
    ///
    /// - Parameters:
    ///   - metadata: The entry's metadata.
    ///   - now: The date of the write or renewal.
    ///   - defaultMaxAge: The store's time to live in seconds, which an entry without an expiry of its own has.
    init(_ metadata: EntryMetadata, now: Date, defaultMaxAge: Double?) {
        let storedAt = metadata.storedAt ?? now
        // Without an expiry of its own, an entry stored now defers to the configuration's time to live; one dated
        // otherwise gets the age that ends it that long after now.
        let expiresAt = metadata.expiresAt ?? (storedAt == now ? nil : defaultMaxAge.map { now.addingTimeInterval($0) })
        var maxAge = expiresAt.map { Self.age(of: $0, since: storedAt) }
        if metadata.forbidsServingStale {
            let fresh = max(0, metadata.freshUntil.map { Self.age(of: $0, since: storedAt) } ?? 0)
            maxAge = min(maxAge ?? defaultMaxAge ?? fresh, fresh)
        }
        self.init(
            storedAt: storedAt.timeIntervalSince1970,
            maxAge: maxAge,
            freshUntil: metadata.freshUntil?.timeIntervalSince1970,
            tags: metadata.tags.sorted()
        )
    }

    /// The seconds from `start` to `date`, saturated at the largest finite number either way: two finite dates far
    /// apart (1e308 after -1e308) are an infinite age, which the index refuses to read back; saturated, the entry
    /// lives for ever (or is stale at once) all the same.
    private static func age(of date: Date, since start: Date) -> Double {
        min(max(date.timeIntervalSince(start), -.greatestFiniteMagnitude), .greatestFiniteMagnitude)
    }
}
