import Foundation

/// A cached server response: Beagle's `CacheReference`, `Codable` so the persistent store can keep it.
public struct CacheReference: Codable, Hashable, Sendable {
    /// The reference's identifier, such as the URL of the screen.
    public let identifier: String

    /// The cached bytes.
    public let data: Data

    /// The version of the data the server knows (its `ETag`, or a hash of the data), sent back so the
    /// server can answer `304 Not Modified`.
    public let hash: String

    /// How many seconds the reference stays valid after ``timeOfCreation``; `nil` for the manager's default.
    public let maxAge: Int?

    /// When the data was fetched or last revalidated.
    public let timeOfCreation: Date

    /// Creates a reference.
    ///
    /// - Parameters:
    ///   - identifier: The identifier.
    ///   - data: The cached bytes.
    ///   - hash: The version of the data.
    ///   - maxAge: Seconds of validity; `nil` for the manager's default.
    ///   - timeOfCreation: When the data was fetched.
    public init(identifier: String, data: Data, hash: String, maxAge: Int? = nil, timeOfCreation: Date) {
        self.identifier = identifier
        self.data = data
        self.hash = hash
        self.maxAge = maxAge
        self.timeOfCreation = timeOfCreation
    }
}
