/// A cache of server responses by identifier: Beagle's `CacheManagerProtocol`, `Sendable`.
///
/// ``CacheManager`` implements it; ``CachedFetcher`` works with any implementation.
public protocol CacheManagerProtocol: Sendable {
    /// Stores `reference`, replacing any reference with its identifier.
    ///
    /// - Parameter reference: The reference.
    func addToCache(_ reference: CacheReference)

    /// Returns the reference stored under `id`, valid or not, or `nil`.
    ///
    /// - Parameter id: The reference's identifier.
    func getReference(identifiedBy id: String) -> CacheReference?

    /// Whether `reference` is still fresh: its time of creation plus its maximum age is in the future.
    ///
    /// - Parameter reference: The reference.
    func isValid(reference: CacheReference) -> Bool
}
