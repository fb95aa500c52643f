import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// A write that may have taken effect is retried only when a retry cannot apply it twice: an idempotent method
/// (`PUT`, `DELETE`) or a request that carries an `Idempotency-Key`. Status codes say which failures may have
/// taken effect and which are worth retrying.
struct NetworkWriteRetryTests {
    /// A server that answers every request to `/orders` with `status`, and counts them.
    private static func failingServer(status: Int) async throws -> (server: LoopbackServer, requests: Locked<Int>) {
        let requests = Locked(0)
        let reply: @Sendable (ServerRequest) async throws -> ServerReply = { _ in
            requests.withLock { $0 += 1 }
            return ServerReply(status: status)
        }
        let server = try await LoopbackServer.start([("POST /orders", reply), ("PUT /orders", reply)])
        return (server, requests)
    }

    /// Sends one write of `method` through a retry plugin allowing 3 attempts, and returns its error.
    private static func write(
        _ method: HTTPMethod,
        to server: LoopbackServer,
        idempotencyKey: String? = nil
    ) async -> StrataError? {
        let client = HTTPClient(transport: URLSessionTransport())
        let source = NetworkPutDataSource<Item>(client: client) { _ in
            var request = HTTPRequest(method, baseURL: server.baseURL, path: "orders")
            if let idempotencyKey { request.headers[IdempotencyKey.headerName] = idempotencyKey }
            return request
        }
        .plugins([
            RetryPlugin(
                configuration: .init(maxAttempts: 3, backoff: .init(initial: .milliseconds(1), jitter: .none))
            )
        ])
        do {
            _ = try await source.put(Item(name: "order"), in: KeyQuery("order"))
            return nil
        } catch {
            return error as? StrataError
        }
    }

    /// Before, a `POST` answered 502 (a gateway that lost the origin's answer, the order perhaps created) was sent
    /// again, twice, with nothing to let the server see it was the same order.
    @Test(.timeLimit(.minutes(1)))
    func aPostThatMayHaveTakenEffectIsNotRetriedWithoutAnIdempotencyKey() async throws {
        let (server, requests) = try await Self.failingServer(status: 502)
        defer { Task { await server.stop() } }

        let error = await Self.write(.post, to: server)

        #expect(requests.withLock { $0 } == 1)
        #expect(error?.mayHaveTakenEffect == true)
        #expect(error?.isRetryable == false)
    }

    @Test(.timeLimit(.minutes(1)))
    func aPostWithAnIdempotencyKeyAndAPutAreRetried() async throws {
        for (method, key) in [(HTTPMethod.post, "order-1"), (.put, nil)] {
            let (server, requests) = try await Self.failingServer(status: 502)
            defer { Task { await server.stop() } }

            let error = await Self.write(method, to: server, idempotencyKey: key)

            #expect(requests.withLock { $0 } == 3, "\(method)")
            #expect(error?.mayHaveTakenEffect == true, "\(method)")
        }
    }

    /// A status that says the request cannot be served (`501`, `505`) is not retried, and took no effect; a `503`
    /// (the server did not handle it) is retried and took no effect; any other 5xx (a `520` from a proxy that had
    /// forwarded the request) may have taken effect.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [(501, false, false), (505, false, false), (503, true, false), (520, true, true)]
    )
    func fiveHundredsSayWhetherTheyMayHaveTakenEffectAndAreWorthRetrying(
        status: Int,
        retried: Bool,
        mayHaveTakenEffect: Bool
    ) async throws {
        let (server, requests) = try await Self.failingServer(status: status)
        defer { Task { await server.stop() } }

        let error = await Self.write(.put, to: server)

        #expect(requests.withLock { $0 } == (retried ? 3 : 1))
        #expect(error?.isRetryable == retried)
        #expect(error?.mayHaveTakenEffect == mayHaveTakenEffect)
    }
}

/// The version a write expects (``ExpectedVersion/current``) goes as `If-Match` only when a server can match it.
struct NetworkWriteContextTests {
    /// The `If-Match` a `PUT /notes` carries when the write expects `version`.
    private static func ifMatchSent(expecting version: String) async throws -> String? {
        let sent = Locked<String?>(nil)
        let server = try await LoopbackServer.start([
            (
                "PUT /notes",
                { request in
                    sent.withLock { $0 = request.headers["if-match"] }
                    return ServerReply(status: 204)
                }
            )
        ])
        defer { Task { await server.stop() } }
        let source = NetworkPutDataSource<Item>(client: HTTPClient(transport: URLSessionTransport())) { _ in
            HTTPRequest(.put, baseURL: server.baseURL, path: "notes")
        }
        try await ExpectedVersion.$current.withValue(version) {
            _ = try await source.put(Item(name: "note"), in: KeyQuery("note"))
        }
        return sent.withLock { $0 }
    }

    /// A weak entity tag never matches `If-Match` (RFC 9110, section 13.1.1): before, an outbox resend after a
    /// conflict kept the local value on top of a weak tag, a compliant server answered 412 every time, and the edit
    /// was set aside after three conflicts. It is sent as a write whose entry has no tag is: unconditionally.
    @Test(.timeLimit(.minutes(1)))
    func aWeakTagIsNotSentAsIfMatchAndAStrongOneIs() async throws {
        #expect(try await Self.ifMatchSent(expecting: "W/\"v1\"") == nil)
        #expect(try await Self.ifMatchSent(expecting: "\"v1\"") == "\"v1\"")
    }
}
