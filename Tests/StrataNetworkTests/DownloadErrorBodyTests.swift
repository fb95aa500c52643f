import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// A download answered with an error status needs the first bytes of its body only (for the error's message):
/// the transport closes the connection once they are in, so a server that trickles an endless error body cannot
/// hold the download until its total deadline, nor turn the status into a timeout.
struct DownloadErrorBodyTests {
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func anEndlessErrorBodyEndsTheDownloadOnceItsFirstBytesAreIn(transport kind: TransportUnderTest) async throws {
        // Given a server that answers 503 with a chunked body of 1 KiB every 20 ms, for up to a minute
        let written = Locked(0)
        let server = try RawServer.endlessErrorBody(counting: written)
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = HTTPClient(
            transport: kind.make(),
            configuration: .init(totalTimeout: .seconds(120), downloadDirectory: folder)
        )

        // When it is downloaded
        let error = await strataError { _ = try await client.download(HTTPRequest(url: server.baseURL)) }
        let writtenWhenItEnded = written.withLock { $0 }

        // Then the download fails with the status and the body's first bytes, long before the server is through:
        // the connection was closed, not read to its end
        #expect(error?.httpFailure?.status == 503, "\(String(describing: error))")
        #expect(error?.httpFailure?.bodyPrefix == Data(repeating: 0x61, count: HTTPFailure.bodyPrefixLimit))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(writtenWhenItEnded < 3_000)
    }
}
