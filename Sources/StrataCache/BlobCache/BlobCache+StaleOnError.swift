import Foundation
import Strata

extension BlobCache {
    /// Whether a stale blob may stand in for a failed download: only when configured, for transport
    /// failures and 5xx, within `stale-if-error` when the response gave it, never under `must-revalidate`.
    func servesStale(_ stale: PersistentEntry, after error: any Error) -> Bool {
        guard configuration.servesStaleOnError, let error = error as? StrataError else { return false }
        let isOutage =
            error.code == .network || (error.code == .unexpectedResponse && (error.httpFailure?.status ?? 0) >= 500)
        guard isOutage else { return false }
        guard let record = stale.record else { return true }
        guard !record.mustRevalidate else { return false }
        guard let window = record.staleIfError else { return true }
        return configuration.clock.now() < record.freshUntil.addingTimeInterval(window)
    }
}
