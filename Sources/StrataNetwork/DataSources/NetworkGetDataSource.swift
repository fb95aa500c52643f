import Foundation
import Strata

/// A ``Strata/GetDataSource`` over HTTP: a rule turns each query into a request, and a mapper decodes
/// the response body.
///
/// ```swift
/// let users = NetworkGetDataSource<User>(client: client) { query in
///     guard let query = query as? any KeyedQuery else {
///         throw StrataError.queryNotSupported(query, by: NetworkGetDataSource<User>.self)
///     }
///     return HTTPRequest(.get, baseURL: api, path: "users/\(query.key)")
/// }
/// ```
///
/// Errors are the client's: 404 is ``Strata/StrataError/Code/notFound`` (so a ``Strata/CacheRepository``
/// treats it as a miss), a body that does not decode is ``Strata/StrataError/Code/dataSerialization``.
public struct NetworkGetDataSource<Value: Sendable>: GetDataSource {
    /// The client that sends the requests.
    public let client: HTTPClient

    private let request: NetworkRequestRule
    private let decode: any Mapper<Data, Value>
    private let decodeAll: any Mapper<Data, [Value]>

    /// Creates a source with explicit mappers.
    ///
    /// - Parameters:
    ///   - client: The client.
    ///   - request: Maps a query to a request; used by `get` and `getAll`.
    ///   - decode: Decodes the body of a `get`.
    ///   - decodeAll: Decodes the body of a `getAll`.
    public init(
        client: HTTPClient,
        request: @escaping NetworkRequestRule,
        decode: some Mapper<Data, Value>,
        decodeAll: some Mapper<Data, [Value]>
    ) {
        self.client = client
        self.request = request
        self.decode = decode
        self.decodeAll = decodeAll
    }

    /// Sends the request of the query and decodes one value.
    ///
    /// - Throws: ``Strata/StrataError``, see ``HTTPClient/send(_:)``.
    public func get(_ query: any Query) async throws -> Value {
        try await client.send(makeRequest(request, for: query), decodingWith: decode)
    }

    /// Sends the request of the query and decodes a list of values.
    ///
    /// - Throws: ``Strata/StrataError``, see ``HTTPClient/send(_:)``.
    public func getAll(_ query: any Query) async throws -> [Value] {
        try await client.send(makeRequest(request, for: query), decodingWith: decodeAll)
    }
}

extension NetworkGetDataSource where Value: Decodable {
    /// Creates a source that decodes JSON bodies: a value for `get`, an array for `getAll`.
    ///
    /// - Parameters:
    ///   - client: The client.
    ///   - decoder: Makes the decoder.
    ///   - request: Maps a query to a request.
    public init(
        client: HTTPClient,
        decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
        request: @escaping NetworkRequestRule
    ) {
        self.init(
            client: client,
            request: request,
            decode: DataToDecodableMapper<Value>(decoder: decoder),
            decodeAll: DataToDecodableMapper<[Value]>(decoder: decoder)
        )
    }
}
