import Foundation
import StrataNetwork

extension BlobCache {
    /// Whether the blob a record describes answers this cache's requests for `key`: a blob whose response varied on
    /// request fields (``FreshnessRecord/variant``) answers only a request that sends the same values in them, as
    /// this cache's client sends it (its headers included); any other blob does.
    ///
    /// A blob whose record is lost or cannot be read (damaged, or written by another version) answers none: it may
    /// have answered a request that varied (one user's answer), so it is neither revalidated with its validators nor
    /// served stale; the cache asks the server for a whole answer, which replaces it. It stays on disk until then.
    ///
    /// - Parameters:
    ///   - record: The blob's freshness record; `nil` when it is lost or cannot be read.
    ///   - key: The blob's key, its absolute URL.
    func answersRequests(_ record: FreshnessRecord?, forKey key: String) -> Bool {
        guard let record else { return false }
        guard let variant = record.variant else { return true }
        guard let url = URL(string: key) else { return false }
        return variant.matches(client.asSent(HTTPRequest(.get, url: url)))
    }
}
