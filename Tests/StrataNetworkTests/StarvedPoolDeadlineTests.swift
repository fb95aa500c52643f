import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// The URLSession transport enforces its deadlines off Swift's cooperative pool: a process whose pool is busy (every
/// thread spinning, or blocked in a synchronous call) still ends a request whose deadline passed.
///
/// It runs only alone (`STRATA_TESTS_ALONE=1`, as `.ci/run` runs it after the whole suite): while it holds every
/// thread of the pool, every other test's tasks stand still — for about a second each time, since dispatch adds a
/// thread to its pool at most once a second — and a test beside it that times anything would fail for it.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["STRATA_TESTS_ALONE"] == "1", "blocks the pool: run alone"))
struct StarvedPoolDeadlineTests {
    /// Every thread of the pool is blocked while the transport's clock passes a request's total deadline: the request
    /// is stopped, its connection closed, before any thread of the pool is let go. Before, the watchdog was a task
    /// on the pool: it could not run, and the request went on until the pool was free again (measured with spinning
    /// tasks: a 1 s total deadline, a server answering at 2 s, answered 200 after 8 s).
    @Test(.timeLimit(.minutes(1)))
    func aDeadlinePassesWhileEveryThreadOfThePoolIsBlocked() async throws {
        // Given a request whose server trickles its body for as long as the connection lasts
        let (headSent, closed) = (ThreadLatch(), ThreadLatch())
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n".utf8))
            headSent.open()
            do {
                for _ in 0..<1_000_000 {
                    try write(Data("x".utf8))
                    usleep(20_000)
                }
            } catch {
                closed.open()
            }
        }
        defer { server.stop() }
        let transport = URLSessionTransport()
        let client = makeClient(transport)
        let request = Task {
            try await client.send(HTTPRequest(baseURL: server.baseURL, totalTimeout: .seconds(60)))
        }
        #expect(try await onDedicatedThread { headSent.wait(until: Date(timeIntervalSinceNow: 20)) })

        // When the transport's clock passes the deadline while every thread of the pool is blocked
        let (closedWhileBlocked, poolRan) = try await whileThePoolIsBlocked {
            transport.advanceDeadlineClock(by: .seconds(61))
            return closed.wait(until: Date(timeIntervalSinceNow: 10))
        }

        // Then the connection was closed before the pool was let go, and the request failed at its deadline
        #expect(!poolRan, "a thread of the pool was free: the test proves nothing")
        #expect(closedWhileBlocked)
        let error = await strataError { _ = try await request.value }
        #expect(error?.code == .network, "\(String(describing: error))")
        #expect(error?.message.contains("total deadline") == true, "\(String(describing: error))")
    }
}

/// Runs `body` on a thread of its own once every thread of Swift's cooperative pool (one a core) is blocked by a
/// task waiting for the test, and lets them go after it: what `body` returned, and whether a task started meanwhile
/// ran (it cannot, while the pool is blocked).
private func whileThePoolIsBlocked<T: Sendable>(
    _ body: @escaping @Sendable () -> T
) async throws -> (result: T, poolRan: Bool) {
    let width = ProcessInfo.processInfo.activeProcessorCount
    let (started, allStarted, release) = (Locked(0), ThreadLatch(), ThreadLatch())
    for _ in 0..<width {
        Task.detached {
            let count = started.withLock { count in
                count += 1
                return count
            }
            if count == width { allStarted.open() }
            release.wait(until: Date(timeIntervalSinceNow: 30))
        }
    }
    return try await onDedicatedThread {
        defer { release.open() }
        allStarted.wait(until: Date(timeIntervalSinceNow: 30))
        let probe = ThreadLatch()
        Task.detached { probe.open() }
        let result = body()
        return (result, probe.isOpen)
    }
}
