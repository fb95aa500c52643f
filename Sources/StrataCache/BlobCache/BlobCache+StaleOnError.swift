import Foundation
import Strata
import StrataNetwork

extension BlobCache {
    /// Whether a stale blob may stand in for a failed download: for an outage only (a transport failure, or 500,
    /// 502, 503 or 504: ``StrataNetwork/HTTPFreshness/isOutage(_:)``), never under `must-revalidate`; within the response's `stale-if-error` (RFC 5861) when it gave one, whatever
    /// the configuration says, and otherwise only when configured (``Configuration/servesStaleOnError``).
    func servesStale(_ stale: PersistentEntry, after error: any Error) -> Bool {
        guard let error = error as? StrataError, HTTPFreshness.isOutage(error) else { return false }
        return servesIfError(stale.record, at: configuration.clock.now())
    }

    /// Whether, at `now`, the stale blob `record` describes may stand in for a failed download after an outage:
    /// never under `must-revalidate`; within its `stale-if-error` when the response gave one, otherwise when
    /// configured (``Configuration/servesStaleOnError``).
    func servesIfError(_ record: FreshnessRecord, at now: Date) -> Bool {
        guard !record.mustRevalidate else { return false }
        return record.servesIfError(at: now) ?? configuration.servesStaleOnError
    }
}
