import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport enforces each request's own deadlines however many run at once: a short timeout that starts
/// after a long one still ends on time (the URLSession transport's one watchdog looks again for it), and the long
/// one is not ended with it.
struct TransportDeadlineSharingTests {
    @Test(arguments: TransportUnderTest.all)
    func aShortTimeoutAfterALongOneEndsOnTimeAndAloneOnly(transport kind: TransportUnderTest) async throws {
        // Given a server that answers only when the test lets it, and one transport for both requests
        let gate = Gate()
        let server = try await gatedServer(gate)
        defer {
            gate.open()
            Task { await server.stop() }
        }
        let client = makeClient(kind.make())

        // When a request that allows a minute starts, then one that allows half a second
        let long = Task {
            try await client.send(HTTPRequest(.get, baseURL: server.baseURL, path: "slow", timeout: .seconds(60)))
        }
        let short = HTTPRequest(.get, baseURL: server.baseURL, path: "slow", timeout: .milliseconds(500))
        let started = ContinuousClock.now
        let error = await strataError { _ = try await client.send(short) }
        let waited = ContinuousClock.now - started

        // Then the short one times out on its own deadline, not the long one's (the bound is generous: a loaded
        // machine may be slow, but not by a minute), and the long one still gets its answer once the server gives it
        #expect(waited < .seconds(30))
        #expect(error?.code == .network)
        #expect((error?.underlying as? URLError)?.code == .timedOut)
        gate.open()
        let response = try await long.value
        #expect(response.status == 200)
    }

    @Test(arguments: TransportUnderTest.all)
    func aTimeoutStillEndsARequestAfterEarlierRequestsFinished(transport kind: TransportUnderTest) async throws {
        // Given a transport whose earlier requests have all finished (its watchdog, if any, has nothing left)
        let gate = Gate()
        let server = try await gatedServer(gate)
        defer {
            gate.open()
            Task { await server.stop() }
        }
        let client = makeClient(kind.make())
        for _ in 0..<3 {
            let response = try await client.send(HTTPRequest(.get, baseURL: server.baseURL, path: "fast"))
            #expect(response.status == 200)
        }

        // When a request that allows half a second meets a server that does not answer
        let slow = HTTPRequest(.get, baseURL: server.baseURL, path: "slow", timeout: .milliseconds(500))
        let error = await strataError { _ = try await client.send(slow) }

        // Then it times out
        #expect(error?.code == .network)
        #expect((error?.underlying as? URLError)?.code == .timedOut)
    }
}

/// A loopback server whose `GET /slow` answers only once `gate` opens, and whose `GET /fast` answers at once.
func gatedServer(_ gate: Gate) async throws -> LoopbackServer {
    try await LoopbackServer.start([
        ("GET /fast", { _ in ServerReply(status: 200) }),
        (
            "GET /slow",
            { _ in
                await gate.wait()
                return ServerReply(status: 200)
            }
        ),
    ])
}
