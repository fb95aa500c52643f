#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import LoopbackServer
    import Strata
    import StrataAsyncHTTPClient
    import StrataNetwork
    import StrataTestSupport
    import Testing

    /// What only the AsyncHTTPClient transport has: whose client it is, its error mapping, its chunked uploads.
    /// What every transport promises is tested once for all of them, in StrataNetworkTests (`TransportUnderTest`).
    struct AsyncHTTPClientTransportTests {
        /// A server whose `POST /echo` answers with the request's body, and `GET /ok` with `ok`.
        static func echoServer() async throws -> LoopbackServer {
            try await LoopbackServer.start([
                ("POST /echo", { request in ServerReply(status: 200, body: request.body) }),
                ("GET /ok", { _ in ServerReply(status: 200, body: Data("ok".utf8)) }),
            ])
        }

        /// AsyncHTTPClient's own span of a streamed request starts where the caller's context does not reach: with
        /// a tracer bootstrapped, every request made a root trace of its own. The default configuration takes none
        /// (AsyncHTTPClient stores the bootstrapped tracer, the `NoOpTracer` before any, unless told `nil`).
        @Test func theDefaultConfigurationLeavesTracingToTheTracingTransport() {
            #expect(AsyncHTTPClientTransport.defaultConfiguration.tracing.tracer == nil)
            #expect(AsyncHTTPClient.HTTPClient.Configuration().tracing.tracer != nil)
        }

        @Test(.timeLimit(.minutes(1)))
        func aClientPassedInIsNeverShutDownByTheTransport() async throws {
            let server = try await Self.echoServer()
            defer { Task { await server.stop() } }
            let shared = AsyncHTTPClient.HTTPClient(configuration: AsyncHTTPClientTransport.defaultConfiguration)
            let transport = AsyncHTTPClientTransport(client: shared)

            try await transport.shutdown()
            let response = try await StrataNetwork.HTTPClient(transport: AsyncHTTPClientTransport(client: shared))
                .send(HTTPRequest(baseURL: server.baseURL, path: "ok"))

            #expect(response.body == Data("ok".utf8))
            try await shared.shutdown()
        }

        /// A transport on a shared client, shut down, refuses its own requests as one that owns its client does; the
        /// client stays up for the others.
        @Test(.timeLimit(.minutes(1)))
        func aTransportOnASharedClientRefusesRequestsOnceShutDown() async throws {
            let server = try await Self.echoServer()
            defer { Task { await server.stop() } }
            let shared = AsyncHTTPClient.HTTPClient(configuration: AsyncHTTPClientTransport.defaultConfiguration)
            let transport = AsyncHTTPClientTransport(client: shared)
            let client = StrataNetwork.HTTPClient(transport: transport)
            _ = try await client.send(HTTPRequest(baseURL: server.baseURL, path: "ok"))

            try await transport.shutdown()
            let error = await strataError {
                _ = try await client.send(HTTPRequest(baseURL: server.baseURL, path: "ok"))
            }
            let other = try await StrataNetwork.HTTPClient(transport: AsyncHTTPClientTransport(client: shared))
                .send(HTTPRequest(baseURL: server.baseURL, path: "ok"))

            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
            #expect(other.body == Data("ok".utf8))
            try await shared.shutdown()
        }

        @Test(.timeLimit(.minutes(1)))
        func anOwnedClientShutsDownOnceAndThenRefusesRequests() async throws {
            let server = try await Self.echoServer()
            defer { Task { await server.stop() } }
            let transport = AsyncHTTPClientTransport()
            let client = StrataNetwork.HTTPClient(transport: transport)
            _ = try await client.send(HTTPRequest(baseURL: server.baseURL, path: "ok"))

            try await transport.shutdown()
            try await transport.shutdown()
            let error = await strataError {
                _ = try await client.send(HTTPRequest(baseURL: server.baseURL, path: "ok"))
            }

            // Not a retryable network error: a retry plugin spent every attempt on it, and an offline repository
            // queued every write for ever, against a client that answers nothing again.
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
            #expect(error?.isRetryable == false)
            #expect(error?.message.contains("shut down") == true)
        }

        /// A write on its way when the transport's own client shuts down may have taken effect: the request left.
        /// (AsyncHTTPClient fails it as cancelled, which the transport took for a request never sent.)
        @Test(.timeLimit(.minutes(1)))
        func aWriteOnItsWayWhenTheClientShutsDownMayHaveTakenEffect() async throws {
            // Given a write that reached a server that does not answer yet
            let gate = Gate()
            let server = try await LoopbackServer.start([
                (
                    "PUT /held",
                    { _ in
                        await gate.wait()
                        return ServerReply(status: 200)
                    }
                )
            ])
            defer {
                gate.open()
                Task { await server.stop() }
            }
            let transport = AsyncHTTPClientTransport()
            var request = HTTPRequest(.put, baseURL: server.baseURL, path: "held")
            request.body = Data("value".utf8)
            let write = Task { try await StrataNetwork.HTTPClient(transport: transport).send(request) }
            await poll(until: { server.requestCount(path: "/held") == 1 })

            // When the transport shuts its client down
            try await transport.shutdown()

            // Then the write fails, and may have taken effect
            let error = await strataError { _ = try await write.value }
            #expect(error != nil)
            #expect(error?.mayHaveTakenEffect == true, "\(String(describing: error))")
        }

        /// A refused connection fails at once (the default configuration does not retry it) with the `URLError`
        /// URLSession would give, AsyncHTTPClient's own error beneath it.
        @Test(.timeLimit(.minutes(1)))
        func aRefusedConnectionIsCannotConnectToHost() async throws {
            let refusing = try RefusingPort()
            let request = HTTPRequest(
                .get,
                baseURL: refusing.baseURL,
                timeout: .seconds(30),
                totalTimeout: .seconds(30)
            )

            let error = await strataError {
                _ = try await StrataNetwork.HTTPClient(transport: AsyncHTTPClientTransport()).send(request)
            }

            #expect(error?.code == .network, "\(String(describing: error))")
            #expect(error?.isRetryable == true)
            let underlying = try #require(error?.underlying as? URLError)
            #expect(underlying.code == .cannotConnectToHost)
            #expect(underlying.errorUserInfo[NSUnderlyingErrorKey] != nil)
        }

        /// A body larger than one upload chunk goes out in chunks, with its length, and arrives whole.
        @Test(.timeLimit(.minutes(1)), arguments: [0, 10, 64 * 1024, 64 * 1024 + 1, 3 * 1024 * 1024 + 5])
        func aBodyOfAnySizeArrivesWhole(size: Int) async throws {
            let server = try await Self.echoServer()
            defer { Task { await server.stop() } }
            let body = pattern(count: size)
            let request = HTTPRequest(.post, baseURL: server.baseURL, path: "echo", body: body)

            let response = try await StrataNetwork.HTTPClient(transport: AsyncHTTPClientTransport()).send(request)

            #expect(response.body == body)
            #expect(server.requests.last?.headers["content-length"] == "\(size)")
        }
    }
#endif
