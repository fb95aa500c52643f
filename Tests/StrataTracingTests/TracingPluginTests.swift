#if Tracing
    import Foundation
    import InMemoryTracing
    import Strata
    import StrataNetwork
    import StrataObservabilityTestSupport
    import StrataTesting
    import StrataTracing
    import Testing
    import Tracing

    struct TracingPluginTests {
        private let tracer = InMemoryTracer()

        /// The string attribute `key` of `span`.
        private func text(_ span: FinishedInMemorySpan, _ key: String) -> String? {
            guard case .string(let value)? = span.attributes[key]?.toSpanAttribute() else { return nil }
            return value
        }

        /// The spans as `name outcome` lines, each child indented under its parent, in the order they started.
        private func tree() -> [String] {
            let spans = tracer.finishedSpans.sorted {
                $0.startInstant.nanosecondsSinceEpoch < $1.startInstant.nanosecondsSinceEpoch
            }
            func lines(under parent: String?, depth: Int) -> [String] {
                spans.filter { $0.parentSpanID == parent }.flatMap { span in
                    let outcome = text(span, "strata.outcome") ?? "-"
                    let line = String(repeating: "  ", count: depth) + "\(span.operationName) \(outcome)"
                    return [line] + lines(under: span.spanID, depth: depth + 1)
                }
            }
            return lines(under: nil, depth: 0)
        }

        @Test func opensASpanPerRepositoryCallWithAChildPerSourceAsked() async {
            await ObservedScenario().run(TracingPlugin(tracer: tracer))

            #expect(
                tree() == [
                    "users get miss", "  memory get miss", "  api get hit", "  memory put success",
                    "users get hit", "  memory get hit",
                    "users get miss", "  memory get miss", "  api get miss",
                    "users get staleServed", "  memory get notValid", "  api get error",
                    "users get error", "  memory get miss", "  api get error",
                ]
            )
        }

        /// A stale-while-revalidate refresh outlives the read that started it: its spans hung under the read's span,
        /// which had ended. Its first span now starts a trace of its own, linked to the read's span.
        @Test func aBackgroundRefreshIsATraceOfItsOwnLinkedToTheReadThatStartedIt() async throws {
            // Given a cache whose value went stale just now, inside a window of 60 seconds
            let clock = ManualClock()
            let main = ScriptedDataSource<String>(["1": "new"])
            let cache = ScriptedDataSource<String>()
            let stale = StoredEntry(value: "old", metadata: EntryMetadata())
            cache.script(.get, .failure(StrataError.notValid(staleEntry: stale, staleSince: clock.now())))
            let tracing = TracingPlugin(tracer: tracer)
            let repository = CacheRepository(
                main: main.plugins([tracing], name: "api"),
                cache: cache.plugins([tracing], name: "memory"),
                configuration: .init(refreshPlugins: [tracing])
            )
            let users = repository.plugins([tracing], name: "users")

            // When a read is served the stale value and its refresh runs in the background
            let value = try await users.get(
                KeyQuery("1"),
                operation: .cacheSync(staleWhileRevalidate: .seconds(60), clock: clock)
            )
            await repository.waitForBackgroundRefreshes()

            // Then the refresh is a trace of its own, its source calls inside it, linked to the read
            #expect(value == "old")
            #expect(
                tree() == [
                    "users get staleServed", "  memory get notValid",
                    "refresh get hit", "  api get hit", "  memory put success",
                ]
            )
            let read = try #require(tracer.finishedSpans.first { $0.operationName == "users get" })
            let refresh = try #require(tracer.finishedSpans.first { $0.operationName == "refresh get" })
            #expect(refresh.traceID != read.traceID)
            #expect(refresh.links.map { $0.context.inMemorySpanContext?.spanID } == [read.spanID])
        }

        /// A stream outlives the call that opened it: its re-reads hung under that call's span, which had ended, in
        /// one trace that grew with every change of the key for as long as the stream lived. Each re-read now starts a
        /// trace of its own, linked to the span the stream was opened in.
        @Test(.timeLimit(.minutes(1)))
        func aStreamsReReadIsATraceOfItsOwnLinkedToTheSpanThatOpenedIt() async throws {
            // Given a stream opened inside a request's span, which has ended once its first value came
            let tracing = TracingPlugin(tracer: tracer)
            let repository = CacheRepository(
                main: ScriptedDataSource<String>(["1": "a"]).plugins([tracing], name: "api"),
                cache: ScriptedDataSource<String>().plugins([tracing], name: "memory")
            )
            let stream = tracer.withSpan("subscribe") { _ in
                repository.stream(KeyQuery("1"), operation: .cacheSync)
            }
            var values = stream.compactMap { $0.value }.makeAsyncIterator()
            #expect(await values.next() == "a")

            // When the key changes, and the stream reads it again
            _ = try await repository.put("b", in: KeyQuery("1"), operation: .mainSync)
            #expect(await values.next() == "b")

            // Then the first read is in the request's trace, and the re-read is a trace of its own, linked to it
            let subscribe = try #require(tracer.finishedSpans.first { $0.operationName == "subscribe" })
            let inRequest = tracer.finishedSpans.filter {
                $0.traceID == subscribe.traceID && $0.spanID != subscribe.spanID
            }
            #expect(inRequest.map { $0.operationName }.sorted() == ["api get", "memory get", "memory put"])
            #expect(inRequest.allSatisfy { $0.parentSpanID == subscribe.spanID })
            let reread = try #require(tracer.finishedSpans.last { $0.operationName == "memory get" })
            #expect(reread.traceID != subscribe.traceID)
            #expect(reread.parentSpanID == nil)
            #expect(reread.links.map { $0.context.inMemorySpanContext?.spanID } == [subscribe.spanID])
        }

        @Test func recordsOperationOriginAndErrors() async throws {
            await ObservedScenario().run(TracingPlugin(tracer: tracer))

            let users = tracer.finishedSpans.filter { $0.operationName == "users get" }
            #expect(users.map { text($0, "strata.origin") } == ObservedScenario.origins)
            #expect(users.allSatisfy { text($0, "strata.operation") == "cacheSync" })
            let failed = try #require(users.last)
            #expect(failed.status?.code == .error)
            #expect(failed.errors.count == 1)
            #expect(text(failed, "strata.error.code") == "network")
            // The error's code, not its message ("The server is down"), unless values are included
            #expect(failed.status?.message == "StrataError.network: (message withheld)")
            #expect(failed.errors.map { "\($0.error)" } == ["StrataError.network: (message withheld)"])
            #expect(users[2].errors.isEmpty)  // a miss is not an error
        }

        @Test func recordsWholeErrorsOnlyWhenValuesAreIncluded() async throws {
            await ObservedScenario().run(TracingPlugin(tracer: tracer, includesValues: true))

            let failed = try #require(tracer.finishedSpans.last { $0.operationName == "users get" })
            #expect(failed.status?.message == "StrataError.network: The server is down")
            #expect((failed.errors.first?.error as? StrataError)?.message == "The server is down")
        }

        @Test func carriesTheTraceIntoTheRequestHeadersUnderAClientSpan() async throws {
            // Given an HTTP source whose transport records what it sends, under a traced repository call
            let recorder = RecordingTransport()
            let client = HTTPClient(transport: TracingTransport(recorder, tracer: tracer))
            let plugin = TracingPlugin(tracer: tracer)
            let url = try #require(URL(string: "http://127.0.0.1:9/users/1"))
            let api = NetworkGetDataSource<String>(client: client) { _ in HTTPRequest(.get, url: url) }
                .plugins([plugin], name: "api")

            // When it is read
            _ = try await api.get(KeyQuery("1"))

            // Then the request carries the client span's context, and that span is the source span's child
            let http = try #require(tracer.finishedSpans.first { $0.operationName == "HTTP GET" })
            let source = try #require(tracer.finishedSpans.first { $0.operationName == "api get" })
            #expect(http.kind == .client)
            #expect(http.parentSpanID == source.spanID)
            #expect(http.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
            // The path names the key: it is recorded only when values are
            #expect(text(http, "url.path") == nil)
            let headers = try #require(recorder.requests.first?.headers)
            #expect(headers[InMemoryTracer.spanIDKey] == http.spanID)
            #expect(headers[InMemoryTracer.traceIDKey] == source.traceID)
        }
    }

    extension TracingPluginTests {
        @Test func aTransportFailureIsRecordedOnceOnTheClientSpan() async throws {
            let client = HTTPClient(
                transport: TracingTransport(
                    RecordingTransport(failingWith: StrataError(.network, "down")),
                    tracer: tracer
                )
            )
            let url = try #require(URL(string: "http://127.0.0.1:9/v1/users/1"))

            await #expect(throws: StrataError.self) { try await client.send(HTTPRequest(.get, url: url)) }

            let http = try #require(tracer.finishedSpans.first { $0.operationName == "HTTP GET" })
            #expect(http.errors.map { "\($0.error)" } == ["StrataError.network: (message withheld)"])
            #expect(http.status?.code == .error)
            #expect(text(http, "url.path") == nil)

            let revealing = HTTPClient(
                transport: TracingTransport(RecordingTransport(), tracer: tracer, includesValues: true)
            )
            _ = try await revealing.send(HTTPRequest(.get, url: url))
            let shown = try #require(tracer.finishedSpans.last { $0.operationName == "HTTP GET" })
            #expect(text(shown, "url.path") == "/v1/users/1")
        }

        @Test func staysOutOfTheCallsWithTheNoOpTracerAndLeavesTheCallersTraceAsItIs() async throws {
            // Given a source traced with the NoOpTracer (the default before bootstrapping), read inside a span of
            // another tracer, over a transport that traces on that one
            let noOp = TracingPlugin(tracer: NoOpTracer())
            let recorder = RecordingTransport()
            let client = HTTPClient(transport: TracingTransport(recorder, tracer: tracer))
            let url = try #require(URL(string: "http://127.0.0.1:9/users/1"))
            let api = NetworkGetDataSource<String>(client: client) { _ in HTTPRequest(.get, url: url) }
                .plugins([noOp], name: "api")

            // When it is read
            let value = try await tracer.withSpan("outer") { _ in try await api.get(KeyQuery("1")) }

            // Then the plugin took no part, and the request's span is the caller's span's child
            #expect(value == "Ada")
            #expect(noOp.participation(in: PluginAttachment(name: "api", kind: .dataSource)) == .skipped)
            #expect(noOp.participation(in: PluginAttachment(name: "users", kind: .repository)) == .skipped)
            let recording = TracingPlugin(tracer: tracer)
            #expect(recording.participation(in: PluginAttachment(name: "api", kind: .dataSource)) == .intercepts)
            let outer = try #require(tracer.finishedSpans.first { $0.operationName == "outer" })
            let http = try #require(tracer.finishedSpans.first { $0.operationName == "HTTP GET" })
            #expect(http.parentSpanID == outer.spanID)
            #expect(tracer.finishedSpans.count == 2)
        }
    }

    /// A transport that keeps every request and answers each with `200` and the JSON string `"Ada"`.
    final class RecordingTransport: HTTPTransport {
        private let recorded = Locked<[HTTPRequest]>([])
        /// What every request fails with; `nil` to answer `"Ada"`.
        private let failure: StrataError?

        init(failingWith failure: StrataError? = nil) {
            self.failure = failure
        }

        var requests: [HTTPRequest] { recorded.withLock { $0 } }

        func send(_ request: HTTPRequest, maximumBodySize: Int) async throws -> HTTPResponse {
            recorded.withLock { $0.append(request) }
            if let failure { throw failure }
            return HTTPResponse(status: 200, body: Data(#""Ada""#.utf8))
        }

        func download(
            _ request: HTTPRequest,
            to destination: URL,
            maximumBodySize: Int,
            progress: @escaping @Sendable (DownloadProgress) -> Void
        ) async throws -> HTTPResponse {
            try await send(request, maximumBodySize: maximumBodySize)
        }
    }
#endif
