import Foundation
import StrataNetwork

extension BlobCache {
    /// Whether the blob a record describes answers this cache's requests for `key`: a blob whose response varied on
    /// request fields (``FreshnessRecord/variant``) answers only a request that sends the same values in them, as
    /// this cache's client sends it (its headers included); any other blob, and one whose record is lost, does.
    ///
    /// - Parameters:
    ///   - record: The blob's freshness record.
    ///   - key: The blob's key, its absolute URL.
    func answersRequests(_ record: FreshnessRecord?, forKey key: String) -> Bool {
        guard let variant = record?.variant else { return true }
        guard let url = URL(string: key) else { return false }
        return variant.matches(client.asSent(HTTPRequest(.get, url: url)))
    }
}
