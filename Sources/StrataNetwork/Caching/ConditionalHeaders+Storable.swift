extension ConditionalHeaders {
    /// The longest `ETag` a cache keeps with an entry, in bytes: 1 KiB, far beyond any server's tags.
    package static let maximumStoredEntityTagLength = 1_024

    /// The validators of a response worth keeping with its stored copy: those that can be sent back.
    ///
    /// A server's `ETag` and `Last-Modified` are kept beside an entry and in its store's index, outside every size
    /// limit (a memory store's cost counts the value alone), so only what can revalidate is kept: an entity tag (``isValidEntityTag(_:)``) of at most
    /// ``maximumStoredEntityTagLength`` bytes, and a `Last-Modified` that is an HTTP date (`HTTPDate.parse`, which
    /// reads at most `HTTPDate.maximumLength` bytes; a server ignores any other `If-Modified-Since`). Anything else —
    /// garbage, a control character, 60 KiB of header — is dropped.
    ///
    /// - Parameters:
    ///   - eTag: The `ETag` as received.
    ///   - lastModified: The `Last-Modified` as received.
    /// - Returns: The validators to store.
    package static func storable(eTag: String?, lastModified: String?) -> ConditionalHeaders {
        ConditionalHeaders(
            eTag: eTag.flatMap { $0.utf8.count <= maximumStoredEntityTagLength && isValidEntityTag($0) ? $0 : nil },
            lastModified: lastModified.flatMap { HTTPDate.parse($0) == nil ? nil : $0 }
        )
    }
}
