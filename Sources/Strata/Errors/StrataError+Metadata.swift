import Foundation

extension StrataError {
    /// Refuses metadata a persistent store cannot keep: tags ``checkTags(_:)`` refuses, or a date
    /// ``checkDates(of:)`` refuses.
    ///
    /// - Parameter metadata: The metadata of an entry being written or renewed.
    /// - Throws: ``Code/invalidArgument`` naming the first such tag or date.
    package static func checkMetadata(_ metadata: EntryMetadata) throws {
        try checkTags(metadata.tags)
        try checkDates(of: metadata)
    }

    /// Refuses metadata whose stored date, expiry or freshness date is not a finite time: the rule of every store,
    /// in memory too, where a NaN expiry would be an entry that never expires.
    ///
    /// Inlined and allocation-free for finite dates (a memory put's path); the error is made out of line.
    ///
    /// - Parameter metadata: The metadata of an entry being written or renewed.
    /// - Throws: ``Code/invalidArgument`` naming the first such date.
    @inlinable @inline(__always)
    package static func checkDates(of metadata: EntryMetadata) throws {
        if let date = metadata.storedAt, !date.timeIntervalSince1970.isFinite { throw nonFinite("stored date", date) }
        if let date = metadata.expiresAt, !date.timeIntervalSince1970.isFinite { throw nonFinite("expiry", date) }
        if let date = metadata.freshUntil, !date.timeIntervalSince1970.isFinite {
            throw nonFinite("freshness date", date)
        }
    }

    /// The error of an entry's date that is not a finite time.
    @usableFromInline
    static func nonFinite(_ name: String, _ date: Date) -> StrataError {
        StrataError(.invalidArgument, "An entry's \(name) must be a finite time, not \(date.timeIntervalSince1970)")
    }
}
