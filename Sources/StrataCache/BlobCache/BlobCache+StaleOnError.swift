import Foundation
import Strata

extension BlobCache {
    /// Whether a stale blob may stand in for a failed download: for transport failures and 5xx only, never
    /// under `must-revalidate`; within the response's `stale-if-error` (RFC 5861) when it gave one, whatever
    /// the configuration says, and otherwise only when configured (``Configuration/servesStaleOnError``).
    func servesStale(_ stale: PersistentEntry, after error: any Error) -> Bool {
        guard let error = error as? StrataError else { return false }
        let isOutage =
            error.code == .network || (error.code == .unexpectedResponse && (error.httpFailure?.status ?? 0) >= 500)
        guard isOutage else { return false }
        guard let record = stale.record else { return configuration.servesStaleOnError }
        guard !record.mustRevalidate else { return false }
        return record.servesIfError(at: configuration.clock.now()) ?? configuration.servesStaleOnError
    }
}
