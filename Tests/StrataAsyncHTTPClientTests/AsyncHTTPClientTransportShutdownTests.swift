#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import LoopbackServer
    import Strata
    import StrataAsyncHTTPClient
    import StrataNetwork
    import Testing

    /// A transport shut down, or released, the moment its last answer came: AsyncHTTPClient hands the request's
    /// connection back to its pool just after the answer, and a client shut down in between trapped (`A connection
    /// that we don't know was released`), ending the process. Many rounds, for the race is narrow.
    @Suite(.timeLimit(.minutes(2)))
    struct AsyncHTTPClientTransportShutdownTests {
        static let rounds = 300
        static let concurrency = 4

        static func server() async throws -> LoopbackServer {
            try await LoopbackServer.start([
                ("GET /ok", { _ in ServerReply(status: 200, body: Data("ok".utf8)) }),
                ("GET /large", { _ in ServerReply(status: 200, body: Data(repeating: 7, count: 4096)) }),
            ])
        }

        @Test func aTransportShutDownRightAfterItsAnswerShutsDownCleanly() async throws {
            let server = try await Self.server()
            defer { Task { await server.stop() } }
            for _ in 0..<Self.rounds {
                let transport = AsyncHTTPClientTransport()
                let response = try await transport.send(
                    HTTPRequest(baseURL: server.baseURL, path: "ok"),
                    maximumBodySize: 1024
                )
                #expect(response.body == Data("ok".utf8))
                try await transport.shutdown()
            }
        }

        @Test func aTransportReleasedRightAfterItsAnswerShutsDownCleanly() async throws {
            let server = try await Self.server()
            defer { Task { await server.stop() } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<Self.concurrency {
                    group.addTask {
                        for _ in 0..<Self.rounds {
                            let response = try await AsyncHTTPClientTransport()
                                .send(HTTPRequest(baseURL: server.baseURL, path: "ok"), maximumBodySize: 1024)
                            #expect(response.status == 200)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }

        /// The transport refuses an answer over the limit at its head and fails the request, which AsyncHTTPClient
        /// then ends on its own time, after the caller has its error.
        @Test func aTransportShutDownRightAfterARefusedAnswerShutsDownCleanly() async throws {
            let server = try await Self.server()
            defer { Task { await server.stop() } }
            for _ in 0..<Self.rounds {
                let transport = AsyncHTTPClientTransport()
                await #expect(throws: StrataError.self) {
                    try await transport.send(HTTPRequest(baseURL: server.baseURL, path: "large"), maximumBodySize: 1024)
                }
                try await transport.shutdown()
            }
        }

        /// A client of the caller's, shut down right after the transport made on it was: the transport's shutdown
        /// waits, as for a client of its own, until AsyncHTTPClient has handed the connections back.
        @Test(arguments: ["ok", "large"])
        func aSharedClientShutDownRightAfterItsTransportShutsDownCleanly(path: String) async throws {
            let server = try await Self.server()
            defer { Task { await server.stop() } }
            for _ in 0..<Self.rounds {
                let shared = AsyncHTTPClient.HTTPClient(configuration: AsyncHTTPClientTransport.defaultConfiguration)
                let transport = AsyncHTTPClientTransport(client: shared)
                _ = try? await transport.send(HTTPRequest(baseURL: server.baseURL, path: path), maximumBodySize: 1024)
                try await transport.shutdown()
                #expect(transport.unfinishedRequests == 0)
                try await shared.shutdown()
            }
        }
    }
#endif
