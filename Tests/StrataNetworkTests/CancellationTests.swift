import Foundation
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// Cancelling the calling task ends a request with `cancelled` and closes its connection: the server's writes
/// fail, instead of a body nobody reads going on to the end.
struct CancellationTests {
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, [false, true])
    func cancellingARequestClosesItsConnection(transport kind: TransportUnderTest, download: Bool) async throws {
        // Given a server that sends the head of a 64 MiB body, then the body at about 6 MB/s, for as long as the
        // connection lasts
        let long = try RawServer.sendingUntilClosed()
        let server = long.server
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)

        // When the calling task is cancelled once the response has started
        let task = Task {
            let request = HTTPRequest(url: server.baseURL)
            if download { _ = try await client.download(request) } else { _ = try await client.send(request) }
        }
        await long.headSent.wait()
        task.cancel()
        let error = await strataError { try await task.value }
        await long.ended.wait()

        // Then the call is cancelled, the connection closed under the server, and no file is left
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(long.closedByClient)
        #expect(try folder.contents().isEmpty)
    }
}
