#if ServerSample
    import Foundation
    import InMemoryLogging
    import InMemoryTracing
    import Logging
    import MetricsTestKit
    import Strata
    import StrataNetwork
    import Testing

    @testable import StrataServerSample

    struct ServerSampleTests {
        private let logs = InMemoryLogHandler()
        private let metrics = TestMetrics()
        private let tracer = InMemoryTracer()

        /// Starts the sample on a free port, runs `body` with the server's base URL, then shuts the server down.
        private func withServer(_ body: (URL) async throws -> Void) async throws {
            var logger = Logger(label: "server-sample-test") { _ in logs }
            logger.logLevel = .info
            let (ports, listening) = AsyncStream.makeStream(of: Int.self)
            let app = QuoteServer.application(logger: logger, metrics: metrics, tracer: tracer) { port in
                listening.yield(port)
            }
            let server = Task { try await app.runService(gracefulShutdownSignals: []) }
            defer { server.cancel() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            try await body(try #require(URL(string: "http://127.0.0.1:\(port)/")))
        }

        private func calls(_ outcome: String, _ code: String = "none") -> Int64 {
            metrics.counterTotal(
                label: "strata_calls_total",
                dimensions: [
                    ("source", "quotes"), ("method", "get"), ("operation", "cacheSync"), ("outcome", outcome),
                    ("error_code", code),
                ]
            )
        }

        @Test func servesQuotesThroughTheRepositoryWithLogsMetricsAndSpans() async throws {
            try await withServer { base in
                // When a quote is asked for twice, then one that does not exist
                let client = HTTPClient()
                let quote = base.appendingPathComponent("quotes/1")
                let first = try await client.send(StrataNetwork.HTTPRequest(.get, url: quote))
                let second = try await client.send(StrataNetwork.HTTPRequest(.get, url: quote))
                await #expect(throws: StrataError.self) {
                    try await client.send(StrataNetwork.HTTPRequest(.get, url: base.appendingPathComponent("quotes/9")))
                }

                // Then both answers are the quote, the first from the API and the second from memory
                #expect(String(decoding: first.body, as: UTF8.self) == QuoteServer.quotes["1"])
                #expect(String(decoding: second.body, as: UTF8.self) == QuoteServer.quotes["1"])
                let lines = logs.entries.filter { $0.metadata["strata.source"] == "quotes" }
                #expect(
                    lines.map(\.message.description) == ["get quotes: miss", "get quotes: hit", "get quotes: miss"]
                )
                #expect(
                    lines.map { $0.metadata["strata.origin"]?.description } == ["quotes-api", "quotes-memory", nil]
                )
                #expect(lines.last?.metadata["strata.error.code"] == "notFound")
                #expect(calls("miss") == 1)
                #expect(calls("hit") == 1)
                #expect(calls("miss", "notFound") == 1)

                // And the first request's trace goes from the repository to the HTTP request to the upstream API
                let spans = tracer.finishedSpans
                let root = try #require(spans.first { $0.operationName == "quotes get" })
                let children = spans.filter { $0.parentSpanID == root.spanID }.map(\.operationName)
                #expect(Set(children) == ["quotes-memory get", "quotes-api get", "quotes-memory put"])
                let api = try #require(
                    spans.first { $0.parentSpanID == root.spanID && $0.operationName == "quotes-api get" }
                )
                #expect(spans.contains { $0.parentSpanID == api.spanID && $0.operationName == "HTTP GET" })
            }
        }
    }
#endif
