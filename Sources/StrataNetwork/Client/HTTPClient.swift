import Foundation
import Strata

/// Executes ``HTTPRequest`` values over an ``HTTPTransport`` and maps statuses to ``Strata/StrataError``.
///
/// ```swift
/// let client = HTTPClient()
/// let request = HTTPRequest(.get, baseURL: base, path: "users/42")
/// let user = try await client.send(request, decoding: User.self)
/// ```
///
/// 2xx is success; 404 and 410 throw ``Strata/StrataError/Code/notFound``; 401 and 403
/// ``Strata/StrataError/Code/unauthorized``; 409 and 412 ``Strata/StrataError/Code/conflict``; everything else
/// ``Strata/StrataError/Code/unexpectedResponse`` (retryable for 408, 429 and 5xx but 501 and 505, with
/// `Retry-After`), with the response's details in an ``HTTPFailure`` cause. See ``error(for:request:now:)``. A conditional request (``send(_:ifModifiedSince:)``) answers a
/// `304 Not Modified` as a value, ``ConditionalResponse/notModified(_:)``. A 2xx body larger than
/// ``Configuration/maximumResponseSize`` fails with ``Strata/StrataError/Code/tooLarge`` without being read whole; of
/// any other status only the first ``HTTPFailure/bodyPrefixLimit`` bytes are kept (with Strata's transports, which
/// then stop reading a long or endless body), so an error page is its status's error whatever its size.
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
        let response = try await exchange(request)
        try check(response, of: request)
        return response
    }

    /// Sends a request with the validators of a stored copy (`If-None-Match`, `If-Modified-Since`) and returns
    /// the 2xx response, or *not modified* as a value.
    ///
    /// ```swift
    /// switch try await client.send(request, ifModifiedSince: ConditionalHeaders(eTag: stored.eTag)) {
    /// case .modified(let response): store(response)
    /// case .notModified(let response): renew(stored, with: response.headers)
    /// }
    /// ```
    ///
    /// A 304 whose `ETag` names another version than the one asked about is not about the stored copy (RFC 9111,
    /// section 4.3.4): the request is sent once more without conditions, within what remains of the first one's
    /// total deadline, and its answer returned (a 304 to that one is ``Strata/StrataError/Code/unexpectedResponse``).
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - conditions: The stored copy's validators; empty conditions send the request as it is (a 304 is still
    ///     answered as ``ConditionalResponse/notModified(_:)``: the request may carry validators of its own).
    ///     Conditions none of which can be sent (an `ETag` that is no entity tag) leave a plain request, and a 304
    ///     to it is ``Strata/StrataError/Code/unexpectedResponse``: it cannot be about the stored copy. Sent only
    ///     with a GET or a HEAD: on another method (a query sent as a POST) they would be preconditions of a change
    ///     (RFC 9110, section 13.1), which a server answers with `412 Precondition Failed` when the tag matches, so
    ///     such a request goes as it is, and a 304 to it is ``Strata/StrataError/Code/unexpectedResponse`` too.
    /// - Returns: ``ConditionalResponse/modified(_:)`` with a 2xx response, or
    ///   ``ConditionalResponse/notModified(_:)`` with the 304 and every header it had.
    /// - Throws: As ``send(_:)`` for every other status and failure.
    public func send(_ request: HTTPRequest, ifModifiedSince conditions: ConditionalHeaders) async throws
        -> ConditionalResponse<HTTPResponse>
    {
        var request = try prepared(request.revalidating(conditions))
        let deadlines = callDeadlines(of: request)
        var response = try await exchange(request)
        if Self.isAboutAnotherVersion(response, of: request) {
            // Asked without conditions, a 304 cannot be about any copy: it is checked as any status is.
            request = try request.askedAgain(within: deadlines, now: deadlineNow)
            response = try await exchange(request)
        } else if response.status == 304, Self.acceptsNotModified(request, given: conditions) {
            return .notModified(response)
        }
        try check(response, of: request)
        return .modified(response)
    }

    /// Sends a prepared request, its body in memory up to ``Configuration/maximumResponseSize``: a 2xx's whole, of
    /// any other status (which ``check(_:of:)`` turns into an error) the first ``HTTPFailure/bodyPrefixLimit`` bytes
    /// only, so that a large or trickled error page still fails with its status and `Retry-After`. A transport from
    /// outside the package hands back whole bodies, and its limit applies to them.
    private func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await transport.send(request, into: .successInMemory, maximumBodySize: configuration.maximumResponseSize)
    }

    /// Throws the error a response's status stands for; nothing for a 2xx.
    func check(_ response: HTTPResponse, of request: HTTPRequest) throws {
        if let error = Self.error(for: response, to: request, now: configuration.clock.now()) { throw error }
    }

    /// Sends a request and decodes its body with a mapper.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - mapper: Converts the body; a failure is ``Strata/StrataError/Code/dataSerialization``.
    public func send<Value>(_ request: HTTPRequest, decodingWith mapper: some Mapper<Data, Value>) async throws -> Value
    {
        let response = try await send(request)
        return try Self.decode(response, with: mapper, request: request)
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
        guard configuration.maximumResponseSize >= 0 else {
            throw StrataError(
                .invalidArgument,
                "The client's maximumResponseSize must not be negative; got \(configuration.maximumResponseSize)"
            )
        }
        try request.validate()
        return request
    }

    /// The request as the client sends it, with the configuration's headers: what a cache judges a response by
    /// (`Authorization` and `Cache-Control` in the configuration count too); the request as it is when it cannot be
    /// sent.
    package func asSent(_ request: HTTPRequest) -> HTTPRequest {
        (try? prepared(request)) ?? request
    }

    static func describe(_ request: HTTPRequest) -> String {
        request.describedForErrors(sentTo: try? request.url())
    }

    /// The value `mapper` reads from the body of `response`; a failure is ``Strata/StrataError/Code/dataSerialization``
    /// whose message names the request and what came back — its status, size and `Content-Type` (a proxy's or a
    /// captive portal's HTML page answered with 200 is told from a changed schema at a glance), never the body.
    static func decode<Value>(
        _ response: HTTPResponse,
        with mapper: some Mapper<Data, Value>,
        request: HTTPRequest
    ) throws -> Value {
        do {
            return try mapper.map(response.body)
        } catch {
            throw StrataError.serialization(
                error,
                "Decoding the body of \(describe(request)) as \(Value.self) failed (\(response.describedForDecodingErrors))"
            )
        }
    }
}

extension URLSessionTransport {
    /// A transport shared by the clients that do not bring their own.
    public static let shared = URLSessionTransport()
}
