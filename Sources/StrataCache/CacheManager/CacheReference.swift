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

    /// How old the server's response already was when it arrived, in seconds (its `Age` and its time in transit,
    /// RFC 9111, section 4.2.3); `nil` for none. A request's `max-age` compares this plus the time since
    /// ``timeOfCreation``.
    public let initialAge: Int?

    /// The values the request sent in the fields the server's response varied on (its `Vary`), by lowercased name —
    /// `Authorization`'s, `Proxy-Authorization`'s and `Cookie`'s as one SHA-256 digest (`sha256:…`), never as they
    /// were sent; `nil` when it varied on none. A request that sends other values is not answered from the reference without
    /// asking the server (RFC 9111, section 4.1).
    public let variedFields: [String: [String]]?

    /// Creates a reference.
    ///
    /// - Parameters:
    ///   - identifier: The identifier.
    ///   - data: The cached bytes.
    ///   - hash: The version of the data.
    ///   - maxAge: Seconds of validity; `nil` for the manager's default.
    ///   - timeOfCreation: When the data was fetched.
    public init(identifier: String, data: Data, hash: String, maxAge: Int? = nil, timeOfCreation: Date) {
        self.init(
            identifier: identifier,
            data: data,
            hash: hash,
            maxAge: maxAge,
            timeOfCreation: timeOfCreation,
            initialAge: nil
        )
    }

    /// Creates a reference from a response that arrived already aged.
    ///
    /// - Parameters:
    ///   - identifier: The identifier.
    ///   - data: The cached bytes.
    ///   - hash: The version of the data.
    ///   - maxAge: Seconds of validity; `nil` for the manager's default.
    ///   - timeOfCreation: When the data was fetched.
    ///   - initialAge: How old the response was when it arrived, in seconds; `nil` for none.
    ///   - variedFields: The request's values of the fields the response varied on; `nil` for none.
    public init(
        identifier: String,
        data: Data,
        hash: String,
        maxAge: Int?,
        timeOfCreation: Date,
        initialAge: Int?,
        variedFields: [String: [String]]? = nil
    ) {
        self.identifier = identifier
        self.data = data
        self.hash = hash
        self.maxAge = maxAge
        self.timeOfCreation = timeOfCreation
        self.initialAge = initialAge
        self.variedFields = variedFields
    }
}
