import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// A request cancelled while FoundationNetworking waits for the transport's answer about a redirect ends as
/// cancelled; the process goes on.
struct RedirectCancellationTests {
    /// FoundationNetworking asks the delegate whether to follow a redirect on the delegate queue, and traps if the
    /// answer comes after the task was cancelled ("Received callback for HTTP redirection, but we're not waiting for
    /// it"): the cancellation, queued first, stopped the task before the answer reached it. The transport gives no
    /// answer to a task that is no longer running.
    @Test(.timeLimit(.minutes(1)))
    func aCancellationQueuedAheadOfARedirectsQuestionDoesNotTrap() async throws {
        // Given a server that answers its first request with a redirect only when the test says so
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
        defer {
            sendRedirect.open()
            server.stop()
        }
        let transport = URLSessionTransport()
        let client = makeClient(transport)
        let task = Task { try await client.send(HTTPRequest(url: server.baseURL.appending(path: "start"))) }
        await headRead.wait()

        // When the transport's delegate queue is held, the caller cancels (the stop waits on the queue), and then
        // the redirect arrives (FoundationNetworking's question waits behind the stop)
        let queue = transport.delegateQueue
        let holding = ThreadLatch()
        let hold = ThreadLatch()
        queue.addOperation {
            holding.open()
            hold.wait(until: Date() + 30)
        }
        defer { hold.open() }
        #expect(holding.wait(until: Date() + 10))
        task.cancel()
        sendRedirect.open()
        let queued = await poll(within: .seconds(10)) { queue.operationCount >= 3 }
        hold.open()

        // Then the request ends as cancelled, and the transport still answers the next request
        let error = await strataError { _ = try await task.value }
        #expect(queued, "the stop and the redirect's question were not both queued")
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        let next = try await client.send(HTTPRequest(url: server.baseURL.appending(path: "next")))
        #expect(next.body == Data("ok".utf8))
    }
}
