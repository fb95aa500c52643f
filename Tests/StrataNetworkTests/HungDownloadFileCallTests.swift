import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// A network mount that hangs a download file's open or close (a dead NFS server) holds that file's own queue only:
/// the URLSession transport's other transfers go on, its deadlines still pass, and no file is left behind once the
/// mount answers.
@Suite("Download files: a hung open or close holds no other transfer")
struct HungDownloadFileCallTests {
    /// Before, the file was created on the transport's delegate queue, which every transfer's callbacks share: while
    /// the open hung, no other request of the transport was answered (the request below waited for the open, 20 s).
    @Test(.timeLimit(.minutes(1)))
    func aHungOpenHoldsNoOtherRequest() async throws {
        // Given a download whose file's open hangs
        try await HungDownloadWriteTests.withHeldCalls(.open) { (server, folder, held) async throws in
            let client = makeClient(URLSessionTransport(), timeout: .seconds(30), downloadDirectory: folder.url)
            let download = Task { try await client.download(HTTPRequest(url: server.baseURL)) }
            await poll(until: { held.entered.total > 0 })

            // When another request of the same transport runs
            let response = try await client.send(HTTPRequest(url: server.baseURL))
            let answeredWhileHeld = held.returned.total == 0

            // Then it is answered while the open still hangs, and the download ends whole once the mount goes on
            #expect(response.body.count == 131_072)
            #expect(answeredWhileHeld, "the request waited for the hung open")
            held.release()
            let file = try await download.value
            #expect(try Data(contentsOf: file.fileURL) == Data(repeating: 1, count: 131_072))
        }
    }

    /// A download whose deadline passes while its file's open hangs fails at once; the open, once it returns, finds
    /// the download over, and closes and deletes the file it made (the caller's deletion came before it was there).
    @Test(.timeLimit(.minutes(1)))
    func aDownloadWhoseOpenHangsEndsAtItsDeadlineAndLeavesNoFile() async throws {
        try await HungDownloadWriteTests.withHeldCalls(.open) { (server, folder, held) async throws in
            // Given a download whose file's open hangs
            let transport = URLSessionTransport()
            let client = makeClient(transport, timeout: .seconds(60), downloadDirectory: folder.url)
            let download = Task {
                try await client.download(HTTPRequest(baseURL: server.baseURL, totalTimeout: .seconds(30)))
            }
            await poll(until: { held.entered.total > 0 })

            // When its deadline passes
            transport.advanceDeadlineClock(by: .seconds(31))
            let error = await strataError { _ = try await download.value }
            let endedWhileHeld = held.returned.total == 0

            // Then it fails at once, and once the open returns the file is closed and deleted
            #expect(error?.code == .network, "\(String(describing: error))")
            #expect(error?.message.contains("total deadline") == true, "\(String(describing: error))")
            #expect(endedWhileHeld, "the download waited for the hung open")
            held.release()
            #expect(await poll(within: .seconds(5)) { held.count(.close) == 1 })
            #expect(await poll(within: .seconds(5)) { (try? folder.contents())?.isEmpty == true })
            #expect(await HungDownloadWriteTests.noDescriptorNames(folder.url))
        }
    }

    /// Before, a transfer's file was closed by whoever ended it: the deadline's watchdog closed a download's file, and
    /// while that close hung (a dirty file on a dead mount flushes on close), the download's caller got no answer and
    /// no other deadline of the transport passed (the download below waited for the close, 20 s).
    @Test(.timeLimit(.minutes(1)))
    func aHungCloseHoldsNoDeadline() async throws {
        // Given a download whose server sends its first bytes, then nothing, and another request whose server sends
        // nothing, on one transport, and a folder whose files' close hangs
        let stall = ThreadLatch()
        let server = try RawServer.start(answering: { head, write in
            if head.hasPrefix("GET /download ") {
                try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".utf8))
                try write(Data(repeating: 1, count: 10))
            }
            stall.wait(until: Date(timeIntervalSinceNow: 20))
        })
        defer {
            stall.open()
            server.stop()
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let held = HeldFileCalls(in: folder.url, holding: .close)
        defer { held.remove() }
        let transport = URLSessionTransport()
        let client = makeClient(transport, timeout: .seconds(60), downloadDirectory: folder.url)
        let download = Task {
            try await client.download(
                HTTPRequest(baseURL: server.baseURL, path: "download", totalTimeout: .seconds(30))
            )
        }
        let other = Task {
            try await client.send(HTTPRequest(baseURL: server.baseURL, path: "other", totalTimeout: .seconds(40)))
        }
        await poll(until: { server.requestHeads.count == 2 && Self.sizes(in: folder) == [10] })

        // When the download's deadline passes: its file's close hangs
        transport.advanceDeadlineClock(by: .seconds(31))
        let error = await strataError { _ = try await download.value }
        let downloadEndedWhileHeld = held.returned.total == 0
        // and then the other request's
        transport.advanceDeadlineClock(by: .seconds(10))
        let otherError = await strataError { _ = try await other.value }
        await poll(until: { held.entered.total == 1 })
        let otherEndedWhileHeld = held.returned.total == 0

        // Then both fail at their deadline while the close still hangs; once it returns, nothing is left
        #expect(error?.message.contains("total deadline") == true, "\(String(describing: error))")
        #expect(otherError?.message.contains("total deadline") == true, "\(String(describing: otherError))")
        #expect(downloadEndedWhileHeld, "the download's caller waited for the hung close")
        #expect(otherEndedWhileHeld, "the other request's deadline waited for the hung close")
        held.release()
        #expect(try folder.contents().isEmpty)
        #expect(await HungDownloadWriteTests.noDescriptorNames(folder.url))
    }

    /// A download whose file cannot be created (its folder is gone) fails with the `io` error that names the file,
    /// whether the body has bytes (the failure seen at its first chunk) or none (seen at its end), and leaves nothing.
    @Test(arguments: TransportUnderTest.all, [0, 131_072])
    func aFileThatCannotBeCreatedFailsTheDownload(transport kind: TransportUnderTest, bodySize: Int) async throws {
        let server = try RawServer.answering(bodySize: bodySize)
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url.appendingPathComponent("gone"))

        let error = await strataError { _ = try await client.download(HTTPRequest(url: server.baseURL)) }

        #expect(error?.code == .io, "\(String(describing: error))")
        #expect(error?.message.hasPrefix("Cannot create the download file") == true, "\(String(describing: error))")
        #expect(try folder.contents().isEmpty)
    }

    /// The sizes of the files in `folder`, by name.
    private static func sizes(in folder: TemporaryFolder) -> [Int] {
        ((try? folder.contents()) ?? []).sorted().compactMap { name in
            let path = folder.url.appendingPathComponent(name).path
            return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue
        }
    }
}
