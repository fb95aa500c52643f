import Foundation
import Strata

/// Executes ``HTTPRequest`` values over an ``HTTPTransport`` and maps statuses to ``Strata/StrataError``.
///
/// ```swift
/// let client = HTTPClient()
/// let request = HTTPRequest(.get, baseURL: api, path: "users/42")
/// let user = try await client.send(request, decoding: User.self)
/// ```
///
/// 2xx is success; 304 throws ``Strata/StrataError/Code/notModified``; 404
/// ``Strata/StrataError/Code/notFound``; 401 and 403 ``Strata/StrataError/Code/unauthorized``; everything
/// else ``Strata/StrataError/Code/httpStatus`` (retryable for 408, 429 and 5xx, with `Retry-After`). See
/// ``error(for:request:now:)``. Bodies larger than ``Configuration/maximumResponseSize`` fail with
/// ``Strata/StrataError/Code/tooLarge`` without being read whole.
public struct HTTPClient: Sendable {
    /// The transport that sends the requests.
    public let transport: any HTTPTransport

    /// Limits and defaults.
    public let configuration: Configuration

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - transport: The transport; the default is ``URLSessionTransport/shared``.
    ///   - configuration: Limits and defaults.
    public init(
        transport: any HTTPTransport = URLSessionTransport.shared,
        configuration: Configuration = Configuration()
    ) {
        self.transport = transport
        self.configuration = configuration
    }

    /// Sends a request and returns its 2xx response.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response, body in memory.
    /// - Throws: ``Strata/StrataError``: a status error (see ``error(for:request:now:)``),
    ///   ``Strata/StrataError/Code/network``, ``Strata/StrataError/Code/tooLarge``,
    ///   ``Strata/StrataError/Code/cancelled``, or ``Strata/StrataError/Code/invalidArgument`` for a method or
    ///   header that could change the request's framing (nothing is sent).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let request = try prepared(request)
        let response = try await transport.send(request, maximumBodySize: configuration.maximumResponseSize)
        if let error = Self.error(for: response, request: Self.describe(request), now: configuration.clock.now()) {
            throw error
        }
        return response
    }

    /// Sends a request and decodes its body with a mapper.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - mapper: Converts the body; a failure is ``Strata/StrataError/Code/dataSerialization``.
    public func send<Value>(_ request: HTTPRequest, decodingWith mapper: some Mapper<Data, Value>) async throws -> Value
    {
        let response = try await send(request)
        return try Self.decode(response.body, with: mapper, request: request)
    }

    /// Sends a request and decodes its JSON body.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - type: The type to decode.
    ///   - decoder: Makes the decoder.
    public func send<Value: Decodable>(
        _ request: HTTPRequest,
        decoding type: Value.Type,
        decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) async throws -> Value {
        try await send(request, decodingWith: DataToDecodableMapper<Value>(decoder: decoder))
    }

    /// The request with the client's default headers and deadlines filled in, validated (see
    /// ``HTTPRequest/validate()``): nothing invalid reaches the transport.
    func prepared(_ request: HTTPRequest) throws -> HTTPRequest {
        var request = request
        var headers = configuration.headers
        headers.merge(request.headers)
        request.headers = headers
        if request.timeout == nil { request.timeout = configuration.timeout }
        if request.totalTimeout == nil { request.totalTimeout = configuration.totalTimeout }
        try request.validate()
        return request
    }

    static func describe(_ request: HTTPRequest) -> String {
        "\(request.method) \((try? request.url().absoluteString) ?? request.path)"
    }

    static func decode<Value>(_ body: Data, with mapper: some Mapper<Data, Value>, request: HTTPRequest) throws -> Value
    {
        do {
            return try mapper.map(body)
        } catch {
            throw StrataError.serialization(error, "Decoding the body of \(describe(request)) as \(Value.self) failed")
        }
    }
}

extension URLSessionTransport {
    /// A transport shared by the clients that do not bring their own.
    public static let shared = URLSessionTransport()
}
