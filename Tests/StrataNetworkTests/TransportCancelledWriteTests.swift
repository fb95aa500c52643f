import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// A request its caller cancels after it left may have reached the server, as one that timed out then may: either
/// transport's `cancelled` error says ``Strata/StrataError/mayHaveTakenEffect`` then, and only then, so that a caller
/// that reads the error (a download's callbacks, an app's own code) does not take a write the server may have run for
/// one never carried out.
struct TransportCancelledWriteTests {
    /// A server whose `POST /export` opens `arrived` and answers once `release` opens.
    private static func holdingServer(_ arrived: Gate, _ release: Gate) async throws -> LoopbackServer {
        try await LoopbackServer.start([
            (
                "POST /export",
                { _ in
                    arrived.open()
                    await release.wait()
                    return ServerReply(status: 200, body: Data("exported".utf8))
                }
            )
        ])
    }

    /// A `POST` of `value` to `/export` on `server`.
    private static func export(to server: LoopbackServer) -> HTTPRequest {
        HTTPRequest(.post, baseURL: server.baseURL, path: "export", body: Data("value".utf8))
    }

    /// Before, the error said nothing of it: on URLSession unless a head had come, on AsyncHTTPClient always (the
    /// caller's cancellation was the transport's own failure, which the rule for a request that left skipped).
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, [false, true])
    func aWriteCancelledAfterItLeftMayHaveTakenEffect(transport kind: TransportUnderTest, download: Bool) async throws {
        // Given a write the server holds once it has arrived
        let (arrived, release) = (Gate(), Gate())
        let server = try await Self.holdingServer(arrived, release)
        defer {
            release.open()
            Task { await server.stop() }
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)
        let request = Self.export(to: server)
        let write = Task {
            if download { _ = try await client.download(request) } else { _ = try await client.send(request) }
        }
        await arrived.wait()

        // When its caller cancels it
        write.cancel()
        let error = await strataError { try await write.value }

        // Then it is cancelled, may have taken effect, and leaves no file
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(error?.mayHaveTakenEffect == true)
        #expect(try folder.contents().isEmpty)
    }

    /// A download whose answer was all in when the client saw its caller's cancellation: the file goes, and the
    /// error says what the server's status says (a `200`, carried out; a `409`, refused). Before, it said nothing.
    @Test(.timeLimit(.minutes(1)), arguments: [(200, true), (409, false)])
    func aDownloadCancelledOnceAnsweredSaysWhatTheStatusSays(status: Int, mayHaveTakenEffect: Bool) async throws {
        let server = try await LoopbackServer.start([
            ("POST /export", { _ in ServerReply(status: status, body: Data("exported".utf8)) })
        ])
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A transport that cancels its caller's task once the answer is all in, before the client looks at it
        let cancellingOnceAnswered = TestTransport(.network) { withUnsafeCurrentTask { $0?.cancel() } }
        let client = makeClient(cancellingOnceAnswered, downloadDirectory: folder.url)

        let request = Self.export(to: server)
        let download = Task { _ = try await client.download(request) }

        let error = await strataError { try await download.value }

        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(error?.mayHaveTakenEffect == mayHaveTakenEffect)
        #expect(try folder.contents().isEmpty)
    }

    /// A write cancelled before it was handed to the transport never left: it was not carried out.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aWriteCancelledBeforeItLeftHasNoEffect(transport kind: TransportUnderTest) async throws {
        let (arrived, release) = (Gate(), Gate())
        let server = try await Self.holdingServer(arrived, release)
        defer {
            release.open()
            Task { await server.stop() }
        }
        let transport = kind.make()
        let request = Self.export(to: server)

        let write = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try await transport.send(request, maximumBodySize: 1024)
        }

        let error = await strataError { try await write.value }

        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(error?.mayHaveTakenEffect == false)
        #expect(server.requestCount() == 0)
    }
}
