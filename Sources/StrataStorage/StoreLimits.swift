import Strata

/// The rule every store on disk applies to the limits it is configured with, with one message for each limit.
///
/// A count or size limit of 0 would make a store that keeps nothing, and other caches read 0 as "no limit": both
/// stores refuse it and say that `nil` is "no limit". A read limit of 0 is allowed (every read of an entry with data
/// is refused), a negative one is not.
package enum StoreLimits {
    /// The most bytes of keys and metadata a store keeps in memory unless configured otherwise (256 MiB), which the
    /// inspectors and the `strata` tool apply too: the default of both stores' `maximumMetadataSize`.
    package static let defaultMaximumMetadataSize = 256 << 20

    /// Throws ``Strata/StrataError/Code/invalidArgument`` for a count, size or metadata limit below 1 or a negative
    /// read limit.
    ///
    /// - Parameters:
    ///   - countLimit: The most entries kept, `nil` for no limit.
    ///   - maxSize: The most bytes kept, `nil` for no limit.
    ///   - maximumReadSize: The most bytes one read loads.
    ///   - maximumMetadataSize: The most bytes of keys and metadata kept in memory.
    package static func validate(
        countLimit: Int?,
        maxSize: Int?,
        maximumReadSize: Int,
        maximumMetadataSize: Int
    ) throws(StrataError) {
        if let countLimit, countLimit < 1 {
            throw StrataError(.invalidArgument, "countLimit must be at least 1 (nil for no limit), got \(countLimit)")
        }
        if let maxSize, maxSize < 1 {
            throw StrataError(.invalidArgument, "maxSize must be at least 1 (nil for no limit), got \(maxSize)")
        }
        guard maximumReadSize >= 0 else {
            throw StrataError(.invalidArgument, "maximumReadSize must not be negative, got \(maximumReadSize)")
        }
        try validate(maximumMetadataSize: maximumMetadataSize)
    }

    /// Throws ``Strata/StrataError/Code/invalidArgument`` for a metadata limit below 1: the stores' rule, which the
    /// inspectors given a limit apply too.
    ///
    /// - Parameter maximumMetadataSize: The most bytes of keys and metadata kept in memory.
    package static func validate(maximumMetadataSize: Int) throws(StrataError) {
        guard maximumMetadataSize >= 1 else {
            throw StrataError(.invalidArgument, "maximumMetadataSize must be at least 1, got \(maximumMetadataSize)")
        }
    }
}
