#if Tracing
    import Foundation
    import Strata
    import StrataNetwork
    import Tracing

    /// An HTTP transport that traces each request and carries the trace to the server in its headers.
    ///
    /// It wraps another transport (``StrataNetwork/URLSessionTransport`` by default): each request runs in a client
    /// span named `HTTP <method>`, child of the current span (a ``TracingPlugin`` span), and the tracer injects that
    /// span's context into the request's headers — with an OpenTelemetry tracer (swift-otel), the W3C `traceparent`
    /// and `tracestate` headers. The span carries `http.request.method`, `server.address` and
    /// `http.response.status_code`; `url.path` (as sent, percent-encoded; never the query) only when
    /// ``includesValues`` is on, since a path often holds a key, a user's identifier or a token. A transport failure
    /// is recorded on it, ``Strata/StrataError/redacted()`` (its code, not its message, which names the URL with its
    /// query) unless ``includesValues`` is on.
    ///
    /// ```swift
    /// let client = HTTPClient(transport: TracingTransport())
    /// ```
    public struct TracingTransport: HTTPTransport, HTTPExchangeTransport {
        /// The transport that sends the requests.
        public let base: any HTTPTransport

        /// The tracer spans are started on and contexts injected with.
        public let tracer: any Tracer

        /// Whether a span carries the request's path, and a failure its whole message; off by default.
        public let includesValues: Bool

        /// Creates the transport.
        ///
        /// - Parameters:
        ///   - base: The transport that sends the requests; ``StrataNetwork/URLSessionTransport/shared`` by default.
        ///   - tracer: The tracer; by default the `InstrumentationSystem.tracer` bootstrapped when this is made (make
        ///     it after `InstrumentationSystem.bootstrap`).
        ///   - includesValues: Record the request's path and failures with their whole messages; off by default.
        public init(
            _ base: any HTTPTransport = URLSessionTransport.shared,
            tracer: any Tracer = InstrumentationSystem.tracer,
            includesValues: Bool = false
        ) {
            self.base = base
            self.tracer = tracer
            self.includesValues = includesValues
        }

        /// The clock the wrapped transport reads its deadlines on.
        package var deadlineClock: DeadlineClock { base.clockForDeadlines }

        /// Sends or downloads inside a client span, with the span's context in the request's headers.
        package func exchange(
            _ request: HTTPRequest,
            into destination: HTTPBodyDestination,
            maximumBodySize: Int
        ) async throws -> HTTPResponse {
            try await Self.traced(request, on: tracer, includesValues: includesValues) { request in
                try await base.send(request, into: destination, maximumBodySize: maximumBodySize)
            }
        }

        /// Runs `send` in a client span on `tracer`, with the span's context injected into the request's headers and
        /// the response's status (or the failure) recorded on it.
        private static func traced<T: Tracer>(
            _ request: HTTPRequest,
            on tracer: T,
            includesValues: Bool,
            _ send: (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            // Not `withSpan`: it would record the error as it is, its message naming the URL with its query.
            let span = SpanStart.span("HTTP \(request.method.rawValue)", on: tracer, ofKind: .client)
            defer { span.end() }
            var request = request
            tracer.inject(span.context, into: &request.headers, using: HeadersInjector())
            span.attributes["http.request.method"] = request.method.rawValue
            span.attributes["server.address"] = request.baseURL.host ?? ""
            if includesValues {
                // The whole path as sent: a request made from a URL has no `path` of its own, and one on a base URL
                // only the part after it.
                span.attributes["url.path"] = (try? request.url())?.path(percentEncoded: true) ?? request.path
            }
            do {
                let response = try await SpanStart.within(span) { try await send(request) }
                span.attributes["http.response.status_code"] = Int64(response.status)
                if response.status >= 500 { span.setStatus(SpanStatus(code: .error)) }
                return response
            } catch {
                span.recordError(includesValues ? error : StrataError.redacting(error))
                span.setStatus(SpanStatus(code: .error))
                throw error
            }
        }
    }

    /// Writes an injected context value into request headers.
    struct HeadersInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
            carrier[key] = value
        }
    }
#endif
