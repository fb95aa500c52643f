import Foundation

extension FileDataSource {
    /// Per-entry settings of a put: its lifetime and the HTTP validators to keep with it.
    public struct EntryOptions: Sendable, Hashable {
        /// How long this entry lives; `nil` uses the configuration's ``Configuration/lifetime``.
        public var timeToLive: Duration?

        /// The entry's `ETag`, for `If-None-Match` revalidation.
        public var eTag: String?

        /// The entry's `Last-Modified` header value, as the server sent it, for `If-Modified-Since`.
        public var lastModified: String?

        /// Creates options.
        ///
        /// - Parameters:
        ///   - timeToLive: How long the entry lives; `nil` for the configuration's lifetime.
        ///   - eTag: The entry's `ETag`.
        ///   - lastModified: The entry's `Last-Modified` header value.
        public init(timeToLive: Duration? = nil, eTag: String? = nil, lastModified: String? = nil) {
            self.timeToLive = timeToLive
            self.eTag = eTag
            self.lastModified = lastModified
        }
    }
}
