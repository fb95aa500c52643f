import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// Collects progress values from any thread.
final class ProgressLog: Sendable {
    private let values = Locked<[DownloadProgress]>([])

    func append(_ progress: DownloadProgress) { values.withLock { $0.append(progress) } }

    var all: [DownloadProgress] { values.withLock { $0 } }
}

struct DownloadTests {
    @Test(arguments: TransportUnderTest.all)
    func largeDownloadReportsMonotonicProgressToOne(
        transport kind: TransportUnderTest
    ) async throws {
        // Given an 8 MiB resource
        let payload = pattern(count: 8 * 1024 * 1024)
        let server = try await LoopbackServer.start([
            ("GET /file", { _ in ServerReply(status: 200, headers: ["ETag": "\"f1\""], body: payload) })
        ])
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)
        let log = ProgressLog()

        // When
        let file = try await client.download(HTTPRequest(baseURL: server.baseURL, path: "file")) { log.append($0) }

        // Then
        let progress = log.all
        #expect(progress.count > 2)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.bytesReceived <= $1.bytesReceived })
        let fractions = progress.compactMap(\.fractionCompleted)
        #expect(fractions.count == progress.count)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(fractions.last == 1.0)
        #expect(file.status == 200)
        #expect(file.headers["etag"] == "\"f1\"")
        #expect(file.byteCount == Int64(payload.count))
        #expect(try Data(contentsOf: file.fileURL) == payload)
    }

    @Test(arguments: TransportUnderTest.all)
    func unknownLengthReportsBytesThenCompletion(
        transport kind: TransportUnderTest
    ) async throws {
        // Given a chunked body of 1 MiB
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            for _ in 0..<16 {
                try write(Data("10000\r\n".utf8) + Data(repeating: 9, count: 65_536) + Data("\r\n".utf8))
            }
            try write(Data("0\r\n\r\n".utf8))
        }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = ProgressLog()

        let file = try await makeClient(kind.make(), downloadDirectory: folder.url).download(
            HTTPRequest(url: server.baseURL)
        ) {
            log.append($0)
        }

        let progress = log.all
        #expect(progress.dropLast().allSatisfy { $0.expectedBytes == nil && $0.fractionCompleted == nil })
        #expect(progress.last?.fractionCompleted == 1.0)
        #expect(progress.last?.bytesReceived == 1_048_576)
        #expect(file.byteCount == 1_048_576)
    }

    @Test(arguments: TransportUnderTest.all)
    func downloadsSequenceEndsWithTheFile(transport kind: TransportUnderTest)
        async throws
    {
        let payload = pattern(count: 300_000)
        let server = try await LoopbackServer.start([("GET /file", { _ in ServerReply(status: 200, body: payload) })])
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }

        var events: [DownloadEvent] = []
        for try await event in makeClient(kind.make(), downloadDirectory: folder.url).downloads(
            HTTPRequest(baseURL: server.baseURL, path: "file")
        ) {
            events.append(event)
        }

        guard case .finished(let file) = try #require(events.last) else {
            Issue.record("The last event is not .finished")
            return
        }
        #expect(try Data(contentsOf: file.fileURL) == payload)
        #expect(events.dropLast().allSatisfy { if case .progress = $0 { true } else { false } })
    }

    /// Iteration that stops at the last progress event (fraction 1, as a progress bar would) never gets the
    /// `.finished` event: the finished file goes with the sequence. A body of unknown length (chunked) reaches
    /// fraction 1 only in the closing report, after the download's last look at cancellation: its file stayed in
    /// the download folder, its name known to nobody.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aFinishedFileNobodyTookIsDeleted(transport kind: TransportUnderTest) async throws {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            for _ in 0..<4 {
                try write(Data("10000\r\n".utf8) + Data(repeating: 9, count: 65_536) + Data("\r\n".utf8))
            }
            try write(Data("0\r\n\r\n".utf8))
        }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)

        var sawCompletion = false
        for try await event in client.downloads(HTTPRequest(url: server.baseURL)) {
            if case .progress(let progress) = event, progress.fractionCompleted == 1 {
                sawCompletion = true
                break
            }
        }

        #expect(sawCompletion)
        // The download ends on its own task: wait for its file to go, up to the test's limit.
        await poll(until: { (try? folder.contents())?.isEmpty == true })
    }

    /// A caller that pulls no event until the download is done finds a few, not one per chunk: the stream kept
    /// every progress report a slow caller had not pulled yet (about 500 for 8 MiB here; a quarter of a million
    /// for 4 GiB), and ends as ever with the last progress and `.finished`.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aCallerSlowerThanTheDownloadFindsOnlyTheLatestEvents(transport kind: TransportUnderTest) async throws {
        let payload = pattern(count: 8 * 1024 * 1024)
        let server = try await LoopbackServer.start([("GET /file", { _ in ServerReply(status: 200, body: payload) })])
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)

        let events = client.downloads(HTTPRequest(baseURL: server.baseURL, path: "file"))
        // The download runs on its own task: wait for its whole file before pulling anything.
        await poll(until: {
            ((try? folder.contents()) ?? []).contains { name in
                let path = folder.url.path + "/" + name
                return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == payload.count
            }
        })
        var pulled: [DownloadEvent] = []
        for try await event in events { pulled.append(event) }

        #expect(pulled.count <= 8, "\(pulled.count) events")
        guard case .finished(let file) = try #require(pulled.last) else {
            Issue.record("The last event is not .finished")
            return
        }
        #expect(try Data(contentsOf: file.fileURL) == payload)
        guard pulled.count >= 2, case .progress(let last) = pulled[pulled.count - 2] else {
            Issue.record("No progress before .finished")
            return
        }
        #expect(last.fractionCompleted == 1)
    }

    /// A caller that takes the `.finished` event owns the file, however it ends the iteration then.
    @Test(arguments: TransportUnderTest.all)
    func aFinishedFileTakenIsTheCallers(transport kind: TransportUnderTest) async throws {
        let payload = pattern(count: 300_000)
        let server = try await LoopbackServer.start([("GET /file", { _ in ServerReply(status: 200, body: payload) })])
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)

        var taken: DownloadedFile?
        for try await event in client.downloads(HTTPRequest(baseURL: server.baseURL, path: "file")) {
            if case .finished(let file) = event {
                taken = file
                break
            }
        }

        let file = try #require(taken)
        #expect(try Data(contentsOf: file.fileURL) == payload)
    }

    @Test(arguments: TransportUnderTest.all)
    func cancellationMidDownloadLeavesNoFile(
        transport kind: TransportUnderTest
    ) async throws {
        // Given a server that sends 1 MiB of a promised 8 MiB, then waits
        let gate = ThreadLatch()
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 8388608\r\n\r\n".utf8))
            try write(Data(repeating: 5, count: 1024 * 1024))
            gate.wait()
        }
        defer {
            gate.open()
            server.stop()
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)
        let started = Gate()

        // When the download task is cancelled after its first progress
        let task = Task {
            defer { started.open() }
            return try await client.download(HTTPRequest(url: server.baseURL)) { _ in started.open() }
        }
        await started.wait()
        task.cancel()
        let result = await task.result

        // Then
        #expect((try? result.get()) == nil)
        #expect(result.strataCode == .cancelled)
        #expect(try folder.contents().isEmpty)
    }

    @Test(arguments: TransportUnderTest.all)
    func downloadOverTheLimitLeavesNoFile(transport kind: TransportUnderTest)
        async throws
    {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8))
            for _ in 0..<64 { try write(Data(repeating: 1, count: 65_536)) }
        }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }

        let error = await strataError {
            _ = try await makeClient(kind.make(), maximumResponseSize: 256 * 1024, downloadDirectory: folder.url)
                .download(HTTPRequest(url: server.baseURL))
        }

        #expect(error?.code == .tooLarge)
        #expect(try folder.contents().isEmpty)
    }

    @Test(arguments: TransportUnderTest.all)
    func failedStatusDownloadThrowsAndLeavesNoFile(
        transport kind: TransportUnderTest
    ) async throws {
        let server = try await LoopbackServer.start([
            ("GET /missing", { _ in ServerReply(status: 404, body: Data("no such file".utf8)) })
        ])
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }

        let error = await strataError {
            _ = try await makeClient(kind.make(), downloadDirectory: folder.url).download(
                HTTPRequest(baseURL: server.baseURL, path: "missing")
            )
        }

        #expect(error?.code == .notFound)
        #expect(error?.message.contains("no such file") == true)
        #expect(try folder.contents().isEmpty)
    }
}

extension Result {
    fileprivate var strataCode: StrataError.Code? {
        if case .failure(let error) = self { return error.strataCode }
        return nil
    }
}
