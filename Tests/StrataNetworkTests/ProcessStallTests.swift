import Foundation
import Strata
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A process that stands still (stopped, swapped out, starved of every core) for longer than a request's idle timeout
/// while its server goes on sending: the bytes wait in the socket, unseen, and the transport's callbacks wait to run
/// just as its timer does. The stall is not an idle connection, and the request finishes.
struct ProcessStallTests {
    /// The fetcher (the `StrataStalledFetcher` fixture, a second process, on each transport) is stopped with
    /// SIGSTOP for 2.5 s, against an idle timeout of 1 s, while a server writes a byte every 100 ms. Before, its
    /// deadline timer woke after the stall, found no byte seen for longer than the idle timeout, and ended the request
    /// (seen in a CI run under AddressSanitizer, whose test process stood still for about 1.5 s).
    ///
    /// The same for a download, whose chunks are written to its file as they come: the AsyncHTTPClient transport's
    /// deadline timer could run after the stall before the event loop read on (once a chunk's write returns, or on a
    /// pooled connection of another loop), and counted the stall as idle.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, [false, true])
    func aStallOfTheWholeProcessIsNotAnIdleConnection(transport kind: TransportUnderTest, downloads: Bool) async throws
    {
        // Given a server that writes 40 bytes, one every 100 ms, and says when it has written five
        let (fifthByte, written) = AsyncStream<Void>.makeStream()
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 40\r\nConnection: close\r\n\r\n".utf8))
            for count in 1...40 {
                usleep(100_000)
                try write(Data("x".utf8))
                if count == 5 { written.yield() }
            }
        }
        defer { server.stop() }
        let fetcher = try #require(CrashWriterFixture.url(of: "StrataStalledFetcher"), "the fixture is not built")
        let process = ChildProcess()
        process.executableURL = fetcher
        process.arguments =
            [server.baseURL.absoluteString, "1000", "30000", kind.name] + (downloads ? ["download"] : [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = Task {
            try await onDedicatedThread { output.fileHandleForReading.readToEndAcrossInterrupts() }
        }

        // When the fetcher stands still for 2.5 s once the server has written five bytes (a real stall: no clock of
        // the test's can stop a process)
        for await _ in fifthByte { break }
        #expect(kill(process.processIdentifier, SIGSTOP) == 0)
        try await Task.sleep(for: .milliseconds(2_500))
        #expect(kill(process.processIdentifier, SIGCONT) == 0)

        // Then it gets the whole body
        let line = String(decoding: try await printed.value, as: UTF8.self)
        try await onDedicatedThread { process.waitUntilExit() }
        #expect(line == "OK 40\n")
    }
}
