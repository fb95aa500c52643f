import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

#if AsyncHTTPClient
    import StrataAsyncHTTPClient
#endif

/// A disk that hangs a download's write holds the thread that writes, never the transport's lock: the download
/// still ends at its idle timeout, with the write still hanging, and its file is closed once the write returns.
@Suite("Download writes: a hung disk does not hold the deadlines")
struct HungDownloadWriteTests {
    ///
    /// A body of 1 KiB is all in before its one write: the AsyncHTTPClient transport waited for that write (20 s) past
    /// every deadline, its client failing the request only once its last chunk was handled.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, [1_024, 131_072])
    func aHungWriteEndsAtTheIdleTimeout(transport kind: TransportUnderTest, bodySize: Int) async throws {
        try await Self.withHeldCalls(bodySize: bodySize) { (server, folder, held) async throws in
            let client = makeClient(kind.make(), timeout: .seconds(2), downloadDirectory: folder.url)

            // On a busy machine the idle timeout may end a download before its first bytes arrive, which is not what
            // this test is about: such an attempt is made again, at most three times.
            var error: StrataError?
            for _ in 0..<3 where held.entered.total == 0 {
                error = await strataError { _ = try await client.download(HTTPRequest(url: server.baseURL)) }
            }
            let endedWhileHeld = held.returned.total == 0

            #expect(error?.code == .network, "\(String(describing: error))")
            #expect(error?.message.contains("idle timeout") == true, "\(String(describing: error))")
            #expect(held.entered.total == 1)
            #expect(endedWhileHeld)
            held.release()
            // The failed download's file is deleted by name, and closed by its writer once the write returns.
            #expect(try folder.contents().isEmpty)
            #expect(await Self.noDescriptorNames(folder.url))
        }
    }

    #if AsyncHTTPClient
        /// A transport shut down after a download ended at its deadline while its last write still hangs: the
        /// AsyncHTTPClient request ends only once the write returns, and the shutdown, which waits for such requests
        /// before it shuts the client down, waits for it at most its bound. (It waited for the disk without end.)
        @Test(.timeLimit(.minutes(1)))
        func aShutdownDoesNotWaitForAHungWrite() async throws {
            try await Self.withHeldCalls(bodySize: 1_024) { (server, folder, held) async throws in
                let transport = AsyncHTTPClientTransport()
                let client = makeClient(transport, timeout: .seconds(2), downloadDirectory: folder.url)
                for _ in 0..<3 where held.entered.total == 0 {
                    _ = await strataError { _ = try await client.download(HTTPRequest(url: server.baseURL)) }
                }
                #expect(held.entered.total == 1)

                try await transport.shutdown()

                #expect(held.returned.total == 0, "the shutdown waited for the held write")
                let refused = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }
                #expect(refused?.code == .invalidArgument, "\(String(describing: refused))")
                held.release()
            }
        }

        /// A transport on a client it does not own, shut down while AsyncHTTPClient still runs one of its requests (a
        /// download ended at its deadline while its last write hangs): the shutdown returns once that request has
        /// ended, so that the client's owner may shut the client down then. (It returned at once: AsyncHTTPClient 1.37
        /// can trap when a client is shut down before a request's connection is back in its pool.)
        @Test(.timeLimit(.minutes(1)))
        func aShutdownOnASharedClientWaitsForTheRequestsItStillRuns() async throws {
            try await Self.withHeldCalls(bodySize: 1_024) { (server, folder, held) async throws in
                let owner = AsyncHTTPClientTransport()
                let transport = AsyncHTTPClientTransport(client: owner.client)
                let client = makeClient(transport, timeout: .seconds(2), downloadDirectory: folder.url)
                for _ in 0..<3 where held.entered.total == 0 {
                    _ = await strataError { _ = try await client.download(HTTPRequest(url: server.baseURL)) }
                }
                #expect(held.entered.total == 1)
                #expect(transport.unfinishedRequests == 1)

                held.release()
                try await transport.shutdown()

                #expect(held.returned.total == 1, "the shutdown returned before the request ended")
                #expect(transport.unfinishedRequests == 0)
                try await owner.shutdown()
            }
        }
    #endif

    /// A download that ended at its deadline while its last write hung reports no progress once the write returns:
    /// its caller was told of the failure. (The AsyncHTTPClient transport reported the whole file done, after the
    /// error.)
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aDownloadEndedWhileItsWriteHungReportsNoProgressAfter(transport kind: TransportUnderTest) async throws {
        try await Self.withHeldCalls(bodySize: 1_024) { (server, folder, held) async throws in
            let client = makeClient(kind.make(), timeout: .seconds(2), downloadDirectory: folder.url)
            let reports = Locked<[Int64]>([])
            var error: StrataError?
            for _ in 0..<3 where held.entered.total == 0 {
                error = await strataError {
                    _ = try await client.download(HTTPRequest(url: server.baseURL)) { step in
                        reports.withLock { $0.append(step.bytesReceived) }
                    }
                }
            }
            let reportedBefore = reports.withLock { $0 }

            held.release()
            #expect(await Self.noDescriptorNames(folder.url))
            #expect(await poll(within: .seconds(5)) { held.returned.total == 1 })

            #expect(error?.code == .network, "\(String(describing: error))")
            #expect(reports.withLock { $0 } == reportedBefore)
        }
    }

    /// Before, a download's hung write held the URLSession transport's one delegate queue, and with it every other
    /// request of the transport: the second request below waited for the write (20 s), or ended at its own idle
    /// timeout although its server had answered at once.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aHungWriteHoldsNoOtherRequest(transport kind: TransportUnderTest) async throws {
        // Given a download whose write hangs
        try await Self.withHeldCalls { (server, folder, held) async throws in
            let client = makeClient(kind.make(), timeout: .seconds(30), downloadDirectory: folder.url)
            let download = Task { try await client.download(HTTPRequest(url: server.baseURL)) }
            await poll(until: { held.entered.total > 0 })

            // When another request of the same client runs
            let response = try await client.send(HTTPRequest(url: server.baseURL))

            // Then it is answered while the write still hangs, and the download ends whole once the disk goes on
            #expect(response.body.count == 131_072)
            #expect(held.returned.total == 0, "the request waited for the hung write")
            held.release()
            let file = try await download.value
            #expect(try Data(contentsOf: file.fileURL) == Data(repeating: 1, count: 131_072))
        }
    }

    /// Before, the AsyncHTTPClient transport made and wrote every download's file on NIO's shared thread pool, one
    /// thread a core: as many hung writes as cores held every other download of the process, whichever its disk.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func hungWritesHoldNoDownloadToAnotherDisk(transport kind: TransportUnderTest) async throws {
        try await Self.withHeldCalls { (server, folder, held) async throws in
            // Given as many downloads whose writes hang as the machine has cores, or two
            let transport = kind.make()
            let hungCount = max(ProcessInfo.processInfo.activeProcessorCount, 2)
            let heldClient = makeClient(transport, timeout: .seconds(30), downloadDirectory: folder.url)
            let hung = (0..<hungCount).map { _ in
                Task { try await heldClient.download(HTTPRequest(url: server.baseURL)) }
            }
            await poll(until: { held.entered.total == hungCount })

            // When the same transport downloads into another folder
            let other = try TemporaryFolder()
            defer { other.remove() }
            let otherClient = makeClient(transport, timeout: .seconds(30), downloadDirectory: other.url)
            let file = try await otherClient.download(HTTPRequest(url: server.baseURL))

            // Then that download ends, whole, while the others' writes still hang; they end once the disk goes on
            #expect(held.returned.total == 0, "the download waited for the hung writes")
            #expect(file.byteCount == 131_072)
            held.release()
            for download in hung { _ = try await download.value }
        }
    }

    /// A download whose disk is slower than its server waits for its disk once its backlog passes a bound, rather
    /// than queueing the whole body in memory as it arrives: its queued bytes stay near the bound, and the file ends
    /// whole.
    @Test(.timeLimit(.minutes(1)))
    func aSlowDiskBoundsItsDownloadsBacklog() async throws {
        let size = 32 << 20
        try await Self.withDownloadWaitingForItsDisk(size: size) { transport, _, download, held in
            // Once the delegate waits for the disk, nothing more is queued until the disk goes on; a delegate that did
            // not wait would queue the whole body (before, it did)
            await poll { transport.backlogWaits > 0 || transport.peakQueuedFileBytes >= size }
            let peak = transport.peakQueuedFileBytes
            held.release()
            let file = try await download.value
            #expect(peak < URLSessionTransportDelegate.heldBacklog + (1 << 20), "\(peak) bytes queued")
            #expect(file.byteCount == Int64(size))
            #expect(try Data(contentsOf: file.fileURL) == Data(repeating: 7, count: size))
        }
    }

    /// A download that holds the delegate queue waiting for its slow disk keeps no other request's connection open
    /// once that request is cancelled: the cancellation is made while the download waits. (Cancelled on the delegate
    /// queue, after the queue's other work, it waited behind the download until its disk caught up, and the body went
    /// on arriving.)
    @Test(.timeLimit(.minutes(1)))
    func aCancelledRequestsConnectionClosesWhileADownloadWaitsForItsDisk() async throws {
        // Given a download whose disk hangs, its backlog past the bound: the transport's delegate queue waits for it
        try await Self.withDownloadWaitingForItsDisk(size: 32 << 20) { _, client, download, held in
            // When another request of the transport, whose server sends a long body for as long as the connection lasts,
            // is cancelled once its head is sent
            let long = try RawServer.sendingUntilClosed()
            defer { long.server.stop() }
            let request = Task { try await client.send(HTTPRequest(url: long.server.baseURL)) }
            await long.headSent.wait()
            request.cancel()
            let error = await strataError { _ = try await request.value }
            // (The close waits for URLSession's dispatch work, which a loaded run delays: the test's time limit bounds
            // the wait.)
            await poll(until: { long.closedByClient })
            let closedWhileHeld = long.closedByClient && held.returned.total == 0
            held.release()
            _ = try await download.value

            // Then its connection was closed while the download still waited
            #expect(error?.code == .cancelled, "\(String(describing: error))")
            #expect(closedWhileHeld)
        }
    }

    /// A file closed while a write holds it is closed when the write returns, not under it.
    @Test func closingDuringAWriteWaitsForIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let held = HeldFileCalls(in: folder.url)
        defer { held.remove() }
        let url = folder.url.appendingPathComponent("held.download")
        let writer = try DownloadFile.create(at: url)
        let writing = Thread { try? writer.write(Data("body".utf8)) }
        writing.start()
        held.firstEntered.wait(until: Date(timeIntervalSinceNow: 20))

        writer.close()
        let openDuringWrite = writer.isOpen
        held.release()

        #expect(openDuringWrite)
        #expect(await poll(within: .seconds(5)) { !writer.isOpen })
        #expect(try Data(contentsOf: url) == Data("body".utf8))
        #expect(throws: StrataError.self) { try writer.write(Data("more".utf8)) }
    }

    /// Runs `body` once a download of `size` bytes, on a transport of its own (with its client), into a folder whose
    /// writes hang until released, has its backlog past the bound: the transport's delegate queue then waits for the
    /// disk.
    private static func withDownloadWaitingForItsDisk(
        size: Int,
        _ body: (URLSessionTransport, HTTPClient, Task<DownloadedFile, any Error>, HeldFileCalls) async throws -> Void
    ) async throws {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nConnection: close\r\n\r\n".utf8))
            for _ in 0..<(size >> 20) { try write(Data(repeating: 7, count: 1 << 20)) }
        }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let held = HeldFileCalls(in: folder.url)
        defer { held.remove() }
        let transport = URLSessionTransport()
        let client = makeClient(transport, timeout: .seconds(30), downloadDirectory: folder.url)
        let download = Task { try await client.download(HTTPRequest(url: server.baseURL)) }
        await poll(until: { transport.peakQueuedFileBytes > URLSessionTransportDelegate.heldBacklog })
        try await body(transport, client, download, held)
    }

    /// Runs `body` with a server that answers every request with `bodySize` bytes (128 KiB by default), and a folder
    /// whose download files' calls of one kind (by default, writes) hang until released.
    static func withHeldCalls(
        _ call: DownloadFileWriter.FileCall = .write,
        bodySize: Int = 131_072,
        _ body: (RawServer, TemporaryFolder, HeldFileCalls) async throws -> Void
    ) async throws {
        let server = try RawServer.answering(bodySize: bodySize)
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let held = HeldFileCalls(in: folder.url, holding: call)
        defer { held.remove() }
        try await body(server, folder, held)
    }

    /// Whether, within five seconds, no open descriptor of this process names a file in `folder` (Linux's
    /// `/proc/self/fd`; elsewhere, true).
    static func noDescriptorNames(_ folder: URL) async -> Bool {
        #if os(Linux)
            await poll(within: .seconds(5)) {
                let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
                return !descriptors.contains { descriptor in
                    let link = "/proc/self/fd/\(descriptor)"
                    return (try? FileManager.default.destinationOfSymbolicLink(atPath: link))?
                        .hasPrefix(folder.path + "/") == true
                }
            }
        #else
            true
        #endif
    }
}

/// A disk that hangs every call of one kind (by default, every write) on the download files of a folder: each waits
/// until ``release()`` or ``remove()`` (at most ``backstop``). Every call is counted, held or not.
final class HeldFileCalls: Sendable {
    private let folder: String
    private let latch = ThreadLatch()
    /// How long a held call waits at most, in seconds: well past any test's time limit, so that no test sees one go
    /// by itself (a 20 s hold went while a loaded run still looked); a test that failed its time limit awaiting what a
    /// held call holds then ends, rather than hanging the run.
    static let backstop: TimeInterval = 300

    /// Opened when the first held call starts to wait.
    let firstEntered = ThreadLatch()
    /// The held calls that started to wait, and those that went on.
    let (entered, returned) = (ByteCounter(), ByteCounter())
    /// Every call made, held or not, in order.
    private let made = Locked<[DownloadFileWriter.FileCall]>([])

    /// Holds every `held` call on a download file in `folder`.
    init(in folder: URL, holding held: DownloadFileWriter.FileCall = .write) {
        self.folder = folder.path
        DownloadFileWriter.heldCalls.withLock {
            $0[folder.path] = { [latch, firstEntered, entered, returned, made] call in
                made.withLock { $0.append(call) }
                guard call == held else { return }
                entered.add(1)
                firstEntered.open()
                latch.wait(until: Date(timeIntervalSinceNow: Self.backstop))
                returned.add(1)
            }
        }
    }

    /// How many `call`s were made (or started) so far, held or not.
    func count(_ call: DownloadFileWriter.FileCall) -> Int { made.withLock { $0.count { $0 == call } } }

    /// Lets every held call, now and later, go on.
    func release() { latch.open() }

    /// Releases the calls and stops holding new ones.
    func remove() {
        latch.open()
        DownloadFileWriter.heldCalls.withLock { $0[folder] = nil }
    }
}
