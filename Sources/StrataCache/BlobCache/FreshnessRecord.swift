import Foundation

/// What the persistent layer keeps beside a blob: its freshness and the cache directives that matter once it
/// is stale. A separate small entry, so that a `304` or a lifetime extension never rewrites the blob.
struct FreshnessRecord: Codable, Sendable {
    /// When the blob stops being fresh.
    var freshUntil: Date
    /// The lifetime it was stored with, in seconds (for the extension policies).
    var lifetime: Double
    /// `stale-if-error`, in seconds, if the response had it.
    var staleIfError: Double?
    /// `must-revalidate` or `no-cache`: never serve it stale.
    var mustRevalidate: Bool
    /// `no-cache`: revalidate before every reuse, also after a `304` that does not say otherwise.
    var noCache: Bool
    /// The content hash of the blob version the record belongs to; another version makes the record void.
    var contentHash: UInt64

    func encoded() -> Data {
        (try? JSONEncoder().encode(self)) ?? Data()
    }

    static func decode(_ data: Data) -> FreshnessRecord? {
        try? JSONDecoder().decode(FreshnessRecord.self, from: data)
    }
}
