import Foundation
import Strata

/// A ``Strata/PutDataSource`` over HTTP: a rule turns each query into a request (its method — `PUT`,
/// `POST`, `PATCH` — and URL), the value is encoded into its body, and the response body, if any, is
/// decoded as the stored value.
///
/// An empty response body (a `204 No Content`) returns the value that was sent. A write made with an
/// ``Strata/IdempotencyKey/current`` key (an outbox replay) sends it as the `Idempotency-Key` header, and one made
/// with an ``Strata/ExpectedVersion/current`` version sends it as `If-Match`.
///
/// A write whose method is not idempotent (``HTTPMethod/isIdempotent``: `POST`, `PATCH`) and that carries no
/// `Idempotency-Key` (from the rule or the current key) is not retried once it may have taken effect (its answer
/// lost after it was sent, a 500, a 502): its error says ``Strata/StrataError/mayHaveTakenEffect`` and is not
/// ``Strata/StrataError/isRetryable``, so a ``Strata/RetryPlugin`` does not apply it twice. Give such requests an
/// `Idempotency-Key` the server honours to have them retried.
public struct NetworkPutDataSource<Value: Sendable>: PutDataSource {
    /// The client that sends the requests.
    public let client: HTTPClient

    private let request: NetworkRequestRule
    private let encode: any Mapper<Value, Data>
    private let encodeAll: any Mapper<[Value], Data>
    private let decoders: ResponseDecoders<Value>
    private let contentType: String?

    /// Creates a source with explicit mappers.
    ///
    /// - Parameters:
    ///   - client: The client.
    ///   - request: Maps a query to a request; its body is replaced by the encoded value.
    ///   - contentType: The `Content-Type` of the body, unless the request sets one.
    ///   - encode: Encodes the value of a `put`.
    ///   - encodeAll: Encodes the values of a `putAll`.
    ///   - decode: Decodes the response of a `put`.
    ///   - decodeAll: Decodes the response of a `putAll`.
    public init(
        client: HTTPClient,
        request: @escaping NetworkRequestRule,
        contentType: String? = nil,
        encode: some Mapper<Value, Data>,
        encodeAll: some Mapper<[Value], Data>,
        decode: some Mapper<Data, Value>,
        decodeAll: some Mapper<Data, [Value]>
    ) {
        self.client = client
        self.request = request
        self.contentType = contentType
        self.encode = encode
        self.encodeAll = encodeAll
        decoders = ResponseDecoders(one: decode, all: decodeAll)
    }

    /// Sends the value in the body of the query's request and returns what the server stored.
    ///
    /// - Throws: ``Strata/StrataError``, see ``HTTPClient/send(_:)``.
    public func put(_ value: Value, in query: any Query) async throws -> Value {
        let request = try makeBodyRequest(query, body: Self.map(value, with: encode))
        let response = try await send(request)
        guard !response.body.isEmpty else { return value }
        return try StrataError.readingAnswer { try decoders.value(in: response, of: request) }
    }

    /// Sends the values in the body of the query's request and returns what the server stored.
    ///
    /// - Throws: ``Strata/StrataError``, see ``HTTPClient/send(_:)``.
    public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        let request = try makeBodyRequest(query, body: Self.map(values, with: encodeAll))
        let response = try await send(request)
        guard !response.body.isEmpty else { return values }
        return try StrataError.readingAnswer { try decoders.values(in: response, of: request) }
    }

    /// Sends a write: one that may have taken effect is not retried when a retry could apply it twice (a method
    /// that is not idempotent, no `Idempotency-Key`).
    private func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            return try await client.send(request)
        } catch var error as StrataError {
            if error.mayHaveTakenEffect, error.isRetryable, !request.method.isIdempotent,
                request.headers[IdempotencyKey.headerName] == nil
            {
                error.isRetryable = false
            }
            throw error
        }
    }

    private func makeBodyRequest(_ query: any Query, body: Data) throws -> HTTPRequest {
        var request = try makeRequest(self.request, for: query)
        request.body = body
        if let contentType, request.headers["Content-Type"] == nil { request.headers["Content-Type"] = contentType }
        return request.carryingWriteContext()
    }

    private static func map<From>(_ value: From, with mapper: any Mapper<From, Data>) throws -> Data {
        do {
            return try mapper.map(value)
        } catch {
            throw StrataError.serialization(error, "Encoding a \(From.self) for a request failed")
        }
    }
}

extension NetworkPutDataSource where Value: Codable {
    /// Creates a source that sends and receives JSON.
    ///
    /// - Parameters:
    ///   - client: The client.
    ///   - encoder: Makes the encoder.
    ///   - decoder: Makes the decoder.
    ///   - request: Maps a query to a request (method and URL).
    public init(
        client: HTTPClient,
        encoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() },
        decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
        request: @escaping NetworkRequestRule
    ) {
        self.init(
            client: client,
            request: request,
            contentType: "application/json",
            encode: EncodableToDataMapper<Value>(encoder: encoder),
            encodeAll: EncodableToDataMapper<[Value]>(encoder: encoder),
            decode: DataToDecodableMapper<Value>(decoder: decoder),
            decodeAll: DataToDecodableMapper<[Value]>(decoder: decoder)
        )
    }
}
