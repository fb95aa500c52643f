import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// A request cancelled while FoundationNetworking asks the transport whether to follow its redirect ends as
/// cancelled, follows nothing, and the process goes on. The tests hold the transport's delegate queue to put the
/// caller's stop and FoundationNetworking's question in either order.
struct RedirectCancellationTests {
    /// FoundationNetworking asks whether to follow a redirect on the delegate queue, and traps if the answer comes
    /// after the task was cancelled ("Received callback for HTTP redirection, but we're not waiting for it"): a stop
    /// queued first reaches the task before the answer. The transport gives no answer to a task no longer running.
    @Test(.timeLimit(.minutes(1)))
    func aCancellationQueuedAheadOfARedirectsQuestionDoesNotTrap() async throws {
        // Given a request whose server redirects it when the test says so
        let fixture = try await HeldRedirect.start()
        defer { fixture.stop() }

        // When the transport's delegate queue is held, the caller cancels (the stop waits on the queue), and then
        // the redirect arrives (FoundationNetworking's question waits behind the stop)
        let hold = QueueHold(on: fixture.queue)
        defer { hold.release() }
        #expect(hold.isHolding)
        fixture.task.cancel()
        fixture.sendRedirect.open()
        let queued = await poll(within: .seconds(10)) { fixture.queue.operationCount >= 3 }
        hold.release()

        // Then the request ends as cancelled, and the transport still answers the next request
        let error = await strataError { _ = try await fixture.task.value }
        #expect(queued, "the stop and the redirect's question were not both queued")
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        let next = try await fixture.client.send(HTTPRequest(url: fixture.server.baseURL.appending(path: "next")))
        #expect(next.body == Data("ok".utf8))
    }

    /// A request cancelled after FoundationNetworking asked whether to follow its redirect, before the transport
    /// answered, follows no redirect: nothing more is sent for a call that has ended.
    @Test(.timeLimit(.minutes(1)))
    func aRequestCancelledBeforeItsRedirectIsAnsweredFollowsNoRedirect() async throws {
        // Given a request whose server redirects it when the test says so
        let fixture = try await HeldRedirect.start()
        defer { fixture.stop() }

        // When the transport's delegate queue is held, the redirect arrives (FoundationNetworking's question waits
        // on the queue), and then the caller cancels, its stop held behind the question a while longer
        let first = QueueHold(on: fixture.queue)
        defer { first.release() }
        #expect(first.isHolding)
        fixture.sendRedirect.open()
        let asked = await poll(within: .seconds(10)) { fixture.queue.operationCount >= 2 }
        let second = QueueHold(on: fixture.queue)
        defer { second.release() }
        fixture.task.cancel()
        first.release()
        #expect(second.isHolding)
        let followed = await poll(within: .seconds(1)) {
            fixture.server.requestHeads.contains { $0.hasPrefix("GET /next ") }
        }
        second.release()

        // Then the request ends as cancelled, and the redirect's target was never asked
        let error = await strataError { _ = try await fixture.task.value }
        #expect(asked, "FoundationNetworking's question was not queued")
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(!followed, "\(fixture.server.requestHeads)")
    }
}

/// A request on a `URLSessionTransport` of its own, whose server has read it and answers `302` to `/next` once
/// ``sendRedirect`` opens; `/next` answers `ok`.
private struct HeldRedirect {
    let server: RawServer
    let sendRedirect: ThreadLatch
    let transport: URLSessionTransport
    let client: HTTPClient
    let task: Task<HTTPResponse, any Error>

    /// The transport's delegate queue.
    var queue: OperationQueue { transport.delegateQueue }

    /// Starts the server and the request, and returns once the server has read it.
    static func start() async throws -> HeldRedirect {
        let headRead = Gate()
        let sendRedirect = ThreadLatch()
        let server = try RawServer.start { head, write in
            if head.hasPrefix("GET /next ") {
                try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8))
                return
            }
            headRead.open()
            guard sendRedirect.wait(until: Date() + 30) else { return }
            let redirect = "HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            try write(Data(redirect.utf8))
        }
        let transport = URLSessionTransport()
        let client = makeClient(transport)
        let task = Task { try await client.send(HTTPRequest(url: server.baseURL.appending(path: "start"))) }
        await headRead.wait()
        return HeldRedirect(
            server: server,
            sendRedirect: sendRedirect,
            transport: transport,
            client: client,
            task: task
        )
    }

    /// Lets a held connection go and stops the server.
    func stop() {
        sendRedirect.open()
        server.stop()
    }
}

/// An operation that holds a delegate queue until released (at most 30 s).
private final class QueueHold: Sendable {
    private let started = ThreadLatch()
    private let released = ThreadLatch()

    /// Queues the holding operation.
    init(on queue: OperationQueue) {
        queue.addOperation { [started, released] in
            started.open()
            released.wait(until: Date() + 30)
        }
    }

    /// Whether the operation runs (waiting at most 10 s for it to start).
    var isHolding: Bool { started.wait(until: Date() + 10) }

    /// Lets the queue go on.
    func release() { released.open() }
}
