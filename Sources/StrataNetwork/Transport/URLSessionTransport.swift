import Foundation
import Strata

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``HTTPTransport``: `URLSession` (FoundationNetworking on Linux) with a delegate that
/// streams each body, counting bytes.
///
/// Why a delegate: `URLSession.bytes(for:)` does not exist in FoundationNetworking, and the
/// completion-handler and `async` data APIs read a body whole before anyone can look at its size. The
/// delegate sees every chunk: a body whose `Content-Length` exceeds the limit fails before its first
/// byte, and one without a length (chunked, or a length that lies) fails at the first chunk past the
/// limit; the bytes gathered so far are dropped and the task is cancelled, so no more than the limit
/// is ever held. The exception is the body of a redirect FoundationNetworking follows (301 to 308 with a `Location`):
/// it reads that body whole, unseen by the delegate: the limit does not apply to it, and the idle timeout counts it
/// as silence — a server that sends an endless redirect body is stopped by the idle timeout or the total deadline,
/// whichever passes first (`AsyncHTTPClientTransport`, in the StrataAsyncHTTPClient product, reads at most a short
/// prefix of it). Downloads write each chunk to the file as it arrives, which gives progress for free; the write holds
/// no lock and runs, with the file's create and close, on a queue of the file's own, so a disk that hangs one of them
/// (a dead network mount) holds neither the transport's other requests nor the deadlines below.
///
/// Strata enforces every request's deadlines itself — the idle timeout (``HTTPRequest/timeout``) and the total
/// deadline (``HTTPRequest/totalTimeout``) — with one timer per transport that cancels a task whose deadline passed,
/// to the millisecond, on a dispatch queue of its own (a cooperative pool kept busy cannot hold it back):
/// FoundationNetworking truncates `timeoutInterval` to whole seconds (a 500 ms timeout fires at once) and
/// restarts it at every byte (a trickling body never times out). URLSession's own timeouts are set out of the
/// way, a minute past Strata's. A deadline that passes is a retryable ``Strata/StrataError/Code/network``
/// error whose message names it, with `URLError(.timedOut)` as its underlying error. The timer looks at least four
/// times per idle timeout, so a process that stood still (stopped, swapped out, starved of every core) is seen as
/// such: bytes that arrived meanwhile waited unseen, and that time is not counted as idle.
///
/// `URLCache` is switched off (`urlCache = nil`, `.reloadIgnoringLocalCacheData`): in FoundationNetworking
/// it ignores query strings in its key and never revalidates, so Strata's caches must be the only ones.
///
/// FoundationNetworking ignores per-task delegates (`URLSessionTask.delegate`), so the transport owns
/// its session: give it a `URLSessionConfiguration` (headers, proxies, cookie storage), or a
/// session whose configuration it copies.
public final class URLSessionTransport: HTTPTransport, HTTPExchangeTransport, Sendable {
    /// The session the transport owns, to read its configuration.
    ///
    /// Never invalidate it (`invalidateAndCancel()`, `finishTasksAndInvalidate()`) nor cancel its tasks: the
    /// transport sends every request through it, and FoundationNetworking traps on a task made by an invalidated
    /// session, and on a task cancelled off the session's delegate queue as it completes. Let the transport go
    /// instead: it invalidates the session when it is released.
    public let session: URLSession

    private let delegate: URLSessionTransportDelegate

    /// The credential fields (``RedirectRule/credentialFields``) of the configuration's `httpAdditionalHeaders`,
    /// set on each request instead, so that a redirect to another origin drops them as it drops the request's own.
    private let credentials: [(name: String, value: String)]

    /// Why the configuration's `httpAdditionalHeaders` are refused (a field that would not be one line on the wire):
    /// every exchange throws it, and sends nothing.
    private let refusal: (any Error)?

    /// `.ephemeral` without cookies and stored credentials: no `Set-Cookie` of one response is sent with the
    /// requests after it, as with AsyncHTTPClient, which keeps none either. On a server, one shared transport
    /// serves many users, and a cookie one of them was given would ride along on the requests of every other.
    ///
    /// Pass a configuration of your own (`.ephemeral`, or one with a cookie storage) to keep cookies.
    public static var defaultConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.urlCredentialStorage = nil
        return configuration
    }

    /// Creates a transport with a session of its own.
    ///
    /// `Authorization`, `Proxy-Authorization` and `Cookie` in the configuration's `httpAdditionalHeaders` are meant
    /// for the origins the transport is asked for: they are taken out of the session's copy and set on each request
    /// that does not set the field itself, so a redirect to another origin drops them as it drops the request's own
    /// (FoundationNetworking adds a session's headers to every request it sends, a redirected one included). A field
    /// there that would not be one line on the wire (a name that is not a token, a value holding a CR, an LF or
    /// another control character) makes every request fail with ``Strata/StrataError/Code/invalidArgument``, sending
    /// nothing, as a request's own field does.
    ///
    /// - Parameter configuration: The session configuration; the transport works on a copy whose
    ///   `urlCache` is `nil`, whose cache policy ignores local data, whose timeouts are out of the way of
    ///   the ones Strata enforces and whose `httpAdditionalHeaders` hold no credentials. The default is
    ///   ``defaultConfiguration``: `.ephemeral` without cookies.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration) {
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? .ephemeral
        var credentials: [(name: String, value: String)] = []
        var refusal: (any Error)?
        copy.httpAdditionalHeaders = copy.httpAdditionalHeaders?.filter { key, value in
            let name = String(describing: key.base)
            let text = String(describing: value)
            do {
                try HTTPSyntax.validateField(name, text)
            } catch {
                refusal = refusal ?? error
                return false
            }
            guard RedirectRule.isCredentialField(name) else { return true }
            credentials.append((name, text))
            return false
        }
        self.credentials = credentials
        self.refusal = refusal
        copy.urlCache = nil
        copy.requestCachePolicy = .reloadIgnoringLocalCacheData
        copy.timeoutIntervalForRequest = RequestDeadlines.longestBackstop
        copy.timeoutIntervalForResource = RequestDeadlines.longestBackstop
        let delegate = URLSessionTransportDelegate()
        self.delegate = delegate
        self.session = URLSession(configuration: copy, delegate: delegate, delegateQueue: delegate.queue)
    }

    /// Creates a transport from a user-supplied session's configuration.
    ///
    /// The session itself is not used: its delegate could not see the bodies on Linux. Its
    /// configuration is copied, with `URLCache` switched off.
    ///
    /// - Parameter session: The session whose configuration to use.
    public convenience init(session: URLSession) {
        self.init(configuration: session.configuration)
    }

    /// The most body bytes any one request of this transport has held, in memory or written to its file:
    /// never more than the request's limit. For tests (the shared transport suite reads it for every transport).
    package var peakBodyBytes: Int { delegate.peakBodyBytes }

    /// The most bytes any one download of this transport has had queued for its file and not yet written, for tests.
    package var peakQueuedFileBytes: Int { delegate.peakQueuedFileBytes }

    /// How many times a download of this transport held the delegate queue to wait for its disk, for tests: counted as
    /// each wait begins, so a test awaits the wait rather than give the download time to get there.
    package var backlogWaits: Int { delegate.backlogWaits }

    /// The session's delegate queue, for tests that hold it to order FoundationNetworking's callbacks.
    package var delegateQueue: OperationQueue { delegate.queue }

    /// The clock this transport's deadlines are read on.
    package var deadlineClock: DeadlineClock { delegate.clock }

    deinit {
        // The session keeps its delegate alive until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    /// Sends a request, its body going to memory or, for a download, to a file created only for a 2xx status.
    package func exchange(
        _ request: HTTPRequest,
        into destination: HTTPBodyDestination,
        maximumBodySize: Int
    ) async throws -> HTTPResponse {
        let sink: URLSessionTransportDelegate.Sink =
            switch destination {
            case .memory: .memory
            case .successInMemory: .pendingMemory
            case .file(let url, _): .pendingFile(url)
            }
        var urlRequest: URLRequest
        do {
            if let refusal { throw refusal }
            urlRequest = try request.urlRequest()
        } catch {
            sink.close()
            throw error
        }
        for field in credentials where urlRequest.value(forHTTPHeaderField: field.name) == nil {
            urlRequest.setValue(field.value, forHTTPHeaderField: field.name)
        }
        let exchange = HTTPExchange(
            request,
            url: urlRequest.url,
            into: destination,
            maximumBodySize: maximumBodySize,
            start: delegate.now
        )
        let task = session.dataTask(with: urlRequest)
        let identifier = task.taskIdentifier
        // The transfer holds its task from the start: a deadline that passes before the task is resumed stops it.
        var transfer = URLSessionTransportDelegate.Transfer(
            exchange: exchange,
            sink: sink,
            lastActivity: exchange.deadlines.start
        )
        transfer.task = task
        let delegate = self.delegate
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.register(identifier, transfer: transfer, continuation: continuation)
                if Task.isCancelled {
                    delegate.cancel(identifier)
                    delegate.stop(task)
                } else if delegate.willResume(identifier), delegate.watchDeadlines(of: identifier) {
                    task.resume()
                } else {
                    // Ended already (cancelled, or a running watchdog found its deadline passed): nothing is sent for
                    // it.
                    delegate.stop(task)
                }
            }
        } onCancel: {
            delegate.cancel(identifier)
            delegate.stop(task)
        }
    }
}
