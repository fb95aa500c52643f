import Foundation
import Strata
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Transport faults against a real server on 127.0.0.1: a silent server, a body that stalls, a connection
/// reset in the middle of a body. Each ends in a typed, retryable network error within the request's
/// timeout, and nothing partial reaches a cache.
struct ReliabilityNetworkFaultTests {
    /// A server that reads the request and then never writes a byte times out as a network error.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aSilentServerTimesOutWithinTheRequestTimeout(transport kind: TransportUnderTest) async throws {
        // Given a server that accepts and reads the request, then says nothing until the test ends
        let never = ThreadLatch()
        let server = try RawServer.start { _ in never.wait() }
        defer {
            never.open()
            server.stop()
        }

        // When the request allows 2 seconds of silence
        let request = HTTPRequest(.get, baseURL: server.baseURL, timeout: .seconds(2))
        let clock = ContinuousClock()
        let started = clock.now
        let error = await strataError { _ = try await makeClient(kind.make()).send(request) }
        let elapsed = clock.now - started

        // Then it failed at its idle timeout, not before and not at some later deadline
        #expect(elapsed >= .milliseconds(1_900), "timed out after \(elapsed)")
        #expect(elapsed < .seconds(15), "timed out after \(elapsed)")
        #expect(error?.code == .network)
        #expect((error?.underlying as? URLError)?.code == .timedOut)
        #expect(error?.isRetryable == true)
    }

    /// A body that stops arriving half-way times out as a network error: the partial body is never returned.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aBodyThatStallsHalfWayTimesOut(transport kind: TransportUnderTest) async throws {
        // Given a server that announces 2,000 bytes, sends 1,000 and then stalls
        let never = ThreadLatch()
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n".utf8))
            try write(pattern(count: 1_000))
            never.wait()
        }
        defer {
            never.open()
            server.stop()
        }

        // When the request allows 2 seconds of silence
        let request = HTTPRequest(.get, baseURL: server.baseURL, timeout: .seconds(2))
        let clock = ContinuousClock()
        let started = clock.now
        let error = await strataError { _ = try await makeClient(kind.make()).send(request) }
        let elapsed = clock.now - started

        // Then it failed at its idle timeout, not before and not at some later deadline
        #expect(elapsed >= .milliseconds(1_900), "timed out after \(elapsed)")
        #expect(elapsed < .seconds(15), "timed out after \(elapsed)")
        #expect(error?.code == .network)
        #expect((error?.underlying as? URLError)?.code == .timedOut)
    }

    /// A connection reset (RST) after part of a body is a retryable network error, and the cache in
    /// front of the source stores nothing.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aConnectionResetMidBodyIsANetworkErrorAndCachesNothing(transport kind: TransportUnderTest) async throws {
        // Given a server that announces 10,000 bytes, sends 1,000 and resets the connection
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 10000\r\nContent-Type: application/json\r\n\r\n".utf8))
            try write(Data(repeating: UInt8(ascii: " "), count: 1_000))
            throw RawServer.ResetConnection()
        }
        defer { server.stop() }
        let cache = ScriptedDataSource<Item>()
        let repository = CacheRepository(
            main: NetworkGetDataSource<Item>(client: makeClient(kind.make())) { _ in HTTPRequest(url: server.baseURL) },
            cache: cache
        )

        // When the repository reads through to the server, twice
        for _ in 0..<2 {
            let error = await strataError { _ = try await repository.get(KeyQuery("item"), operation: .cacheSync) }

            // Then each read fails as a retryable network error, never as a decoding error of half a body
            #expect(error?.code == .network, "\(String(describing: error))")
            #expect(error?.isRetryable == true)
        }
        #expect(cache.callCount(.get) == 2)
        #expect(cache.callCount(.put) == 0)
        #expect(cache.contents.isEmpty)
    }
}

/// A value the network tests decode from JSON.
struct Item: Codable, Hashable, Sendable {
    var name: String
}
