import Foundation
import Strata
import StrataNetwork

extension BlobCache {
    /// Whether a stale blob may stand in for a failed download: for an outage only (a transport failure, or 500,
    /// 502, 503 or 504: ``StrataNetwork/HTTPFreshness/isOutage(_:)``), never under `must-revalidate`; within the response's `stale-if-error` (RFC 5861) when it gave one, whatever
    /// the configuration says, and otherwise only when configured (``Configuration/servesStaleOnError``).
    func servesStale(_ stale: PersistentEntry, after error: any Error) -> Bool {
        guard let error = error as? StrataError, HTTPFreshness.isOutage(error) else { return false }
        let record = stale.record
        guard !record.mustRevalidate else { return false }
        return record.servesIfError(at: configuration.clock.now()) ?? configuration.servesStaleOnError
    }
}
