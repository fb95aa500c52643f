import Foundation
import Strata

extension FileDataSource {
    /// Per-entry settings of a put: its lifetime, the HTTP validators and the caller's own metadata to keep
    /// with it.
    public struct EntryOptions: Sendable, Hashable {
        /// The most bytes of ``attributes`` an entry carries: 4 KiB.
        public static let maxAttributesSize = EntryTrailer.maxAttributesLength

        /// How long this entry lives; `nil` uses the configuration's ``Configuration/timeToLive``.
        public var timeToLive: Duration?

        /// The entry's `ETag`, for `If-None-Match` revalidation.
        public var eTag: String?

        /// The entry's `Last-Modified` header value, as the server sent it, for `If-Modified-Since`.
        public var lastModified: String?

        /// A few bytes of the caller's own metadata (at most ``maxAttributesSize``), written in the entry's
        /// file with its data and kept in the store's index, so ``FileDataSource/info(forKey:)`` returns them
        /// without reading the file.
        public var attributes: Data?

        /// Creates options.
        ///
        /// - Parameters:
        ///   - timeToLive: How long the entry lives; `nil` for the configuration's lifetime.
        ///   - eTag: The entry's `ETag`.
        ///   - lastModified: The entry's `Last-Modified` header value.
        ///   - attributes: The caller's metadata, at most ``maxAttributesSize`` bytes.
        public init(
            timeToLive: Duration? = nil,
            eTag: String? = nil,
            lastModified: String? = nil,
            attributes: Data? = nil
        ) {
            self.timeToLive = timeToLive
            self.eTag = eTag
            self.lastModified = lastModified
            self.attributes = attributes
        }

        /// Throws ``Strata/StrataError/Code/invalidArgument`` for attributes over ``maxAttributesSize``.
        ///
        /// - Parameter attributes: The attributes of a write or a renewal.
        static func checkAttributes(_ attributes: Data?) throws {
            if let attributes, attributes.count > maxAttributesSize {
                throw StrataError(
                    .invalidArgument,
                    "\(attributes.count) bytes of attributes exceed the limit of \(maxAttributesSize)"
                )
            }
        }
    }
}
