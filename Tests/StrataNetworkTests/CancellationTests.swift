import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cancelling the calling task ends a request with `cancelled` and closes its connection: the server's writes
/// fail, instead of a body nobody reads going on to the end.
struct CancellationTests {
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, [false, true])
    func cancellingARequestClosesItsConnection(transport kind: TransportUnderTest, download: Bool) async throws {
        // Given a server that sends the head of a 64 MiB body, then the body at about 6 MB/s, for as long as the
        // connection lasts
        let headSent = Gate()
        let ended = Gate()
        let closedByClient = Locked(false)
        let server = try RawServer.start { write in
            defer { ended.open() }
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 67108864\r\n\r\n".utf8))
            headSent.open()
            do {
                for _ in 0..<1_024 {
                    try write(Data(repeating: 1, count: 65_536))
                    usleep(10_000)
                }
            } catch {
                closedByClient.withLock { $0 = true }
            }
        }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)

        // When the calling task is cancelled once the response has started
        let task = Task {
            let request = HTTPRequest(url: server.baseURL)
            if download { _ = try await client.download(request) } else { _ = try await client.send(request) }
        }
        await headSent.wait()
        task.cancel()
        let error = await strataError { try await task.value }
        await ended.wait()

        // Then the call is cancelled, the connection closed under the server, and no file is left
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(closedByClient.withLock { $0 })
        #expect(try folder.contents().isEmpty)
    }
}
