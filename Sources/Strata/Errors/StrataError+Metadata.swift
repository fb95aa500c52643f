import Foundation

extension StrataError {
    /// Refuses metadata a persistent store cannot keep: tags ``checkTags(_:)`` refuses, or a stored date, expiry
    /// or freshness date that is not a finite time (`Date(timeIntervalSince1970: .nan)`, `.infinity`), which would
    /// be an entry that never expires.
    ///
    /// - Parameter metadata: The metadata of an entry being written or renewed.
    /// - Throws: ``Code/invalidArgument`` naming the first such tag or date.
    package static func checkMetadata(_ metadata: EntryMetadata) throws {
        try checkTags(metadata.tags)
        let dates = [
            ("stored date", metadata.storedAt), ("expiry", metadata.expiresAt), ("freshness date", metadata.freshUntil),
        ]
        for case let (name, date?) in dates where !date.timeIntervalSince1970.isFinite {
            throw StrataError(
                .invalidArgument,
                "An entry's \(name) must be a finite time, not \(date.timeIntervalSince1970)"
            )
        }
    }
}
