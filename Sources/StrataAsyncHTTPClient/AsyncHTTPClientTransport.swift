#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import Strata
    import StrataNetwork

    /// An ``StrataNetwork/HTTPTransport`` on AsyncHTTPClient: streams every body with back-pressure, enforces the
    /// size limit as bytes arrive and both deadlines to the millisecond, on Linux and Apple platforms alike.
    ///
    /// ```swift
    /// let transport = AsyncHTTPClientTransport()
    /// let client = StrataNetwork.HTTPClient(transport: transport)
    /// // When the server stops:
    /// try await transport.shutdown()
    /// ```
    ///
    /// It keeps every promise ``StrataNetwork/URLSessionTransport`` keeps, and passes the same transport tests:
    ///
    /// - **Size limit.** A `Content-Length` above the limit fails with ``Strata/StrataError/Code/tooLarge``
    ///   before the body is read; a body without a length (or with one that lies) fails at the first chunk past
    ///   the limit. AsyncHTTPClient reads the next chunk only once the transport has taken the last one (for a
    ///   download, once it is written), so the body held is never more than the limit plus the one buffer being
    ///   looked at.
    /// - **Deadlines.** The idle timeout (``StrataNetwork/HTTPRequest/timeout``: no byte moved, either way, for
    ///   that long) and the total deadline (``StrataNetwork/HTTPRequest/totalTimeout``) are enforced by the
    ///   transport's own timer on the request's event loop, where the bytes are counted as they move (a busy
    ///   cooperative pool cannot make a request look idle), and end the request with the same retryable
    ///   ``Strata/StrataError/Code/network`` error, `URLError(.timedOut)` underneath, whose message names the deadline.
    /// - **Downloads and errors.** A download's file is created only for a 2xx response and written chunk by
    ///   chunk, with progress. Of a 304 or an error status (a download's, or an ``StrataNetwork/HTTPClient`` send's)
    ///   nothing is written to disk and the first ``StrataNetwork/HTTPFailure/bodyPrefixLimit`` bytes of the body are
    ///   kept for the error: a body announced as at most 64 KiB is read to its end (the rest dropped, the connection
    ///   kept for the next request), any other is cut once those bytes are in, closing the connection.
    /// - **Cancellation.** Cancelling the calling task (or a deadline passing) cancels the AsyncHTTPClient
    ///   request, which closes its connection; the call throws ``Strata/StrataError/Code/cancelled``, which says
    ///   ``Strata/StrataError/mayHaveTakenEffect`` once the request was handed to AsyncHTTPClient (it may have left).
    /// - **Redirects.** It follows a 301, 302, 303, 307 or 308 to `http` or `https`, never from `https` down to
    ///   `http` nor to a URL whose user or password is not UTF-8 once percent-decoded, at most five, never back to a
    ///   URL of the same exchange; across origins the request loses
    ///   `Authorization`, `Proxy-Authorization`, `Cookie` and its URL's credentials. A 304 (whatever `Location` it
    ///   carries), a 305, or a redirect it does not follow is handed back as it is. The transport follows them
    ///   itself, within the first request's total deadline: a redirect's body is read only while it is short, and a
    ///   request that fails meanwhile closes its connection. (AsyncHTTPClient's own following kept such a
    ///   connection leased until the server closed it: give ``init(client:)`` a client whose
    ///   `redirectConfiguration` is `.disallow`, as ``defaultConfiguration``'s is.)
    /// - **Headers.** A request goes through ``StrataNetwork/HTTPRequest/validate()`` first: no method, header
    ///   name or value can add a line on the wire.
    /// - **Errors.** Transport failures are ``Strata/StrataError/Code/network`` errors whose `underlying` is a
    ///   `URLError` with the code URLSession would give (`.cannotConnectToHost`, `.networkConnectionLost`,
    ///   `.timedOut`, `.badServerResponse`, …); AsyncHTTPClient's own error is the `URLError`'s
    ///   `NSUnderlyingErrorKey`.
    ///
    /// The client is either yours (``init(client:)``: share one `HTTPClient` across the process, made with
    /// ``defaultConfiguration``; call ``shutdown()`` on each transport made on it, then shut it down yourself) or the
    /// transport's (``init(configuration:)``: call ``shutdown()`` when done). Not `HTTPClient.shared`: its
    /// configuration follows up to 20 redirects itself (past the transport's rules, holding a connection behind a
    /// redirect body that stalls), retries a refused connection until a deadline, inflates compressed bodies while
    /// their `Content-Encoding` stays (a cache then stores plain bytes under that header) and traces each request, full
    /// URL included, with the tracer a server bootstraps. A request sent after the client was shut down fails with
    /// ``Strata/StrataError/Code/invalidArgument``, which no retry repeats.
    public final class AsyncHTTPClientTransport: HTTPTransport, HTTPExchangeTransport, Sendable {
        /// The AsyncHTTPClient client that sends the requests.
        public let client: AsyncHTTPClient.HTTPClient

        /// Whether the transport created ``client``, and so shuts it down (and knows it follows no redirect).
        let ownsClient: Bool

        private let state = Locked(State())

        /// The clock the requests' deadlines are read on: the continuous clock, moved on only by a test
        /// (``StrataNetwork/HTTPExchangeTransport/advanceDeadlineClock(by:)``).
        package let deadlineClock = DeadlineClock()

        private struct State {
            var isShutDown = false
            /// The most body bytes any one request has held, in memory or in its file.
            var peakBodyBytes = 0
            /// The requests AsyncHTTPClient still runs after their callers had their answers, by number: ``shutdown()``
            /// waits for them.
            var unfinished: [UInt64: EventLoopFuture<Void>] = [:]
            var lastUnfinished: UInt64 = 0
        }

        /// Creates a transport on a client you own and shut down, typically one shared by the whole process.
        ///
        /// A refused connection fails at once only when the client's
        /// `connectionPool.retryConnectionEstablishment` is `false` (see ``defaultConfiguration``); AsyncHTTPClient's
        /// default retries it until a deadline passes. Give it a client whose `redirectConfiguration` is `.disallow`
        /// too: one that follows redirects itself keeps a connection leased after a request that failed while it read
        /// a redirect's body.
        ///
        /// Before you shut the client down, call ``shutdown()`` on the transport: it waits until AsyncHTTPClient is
        /// done with the transport's requests, as for a client of its own, and leaves the client running.
        ///
        /// - Parameter client: The client, made with ``defaultConfiguration`` (not `HTTPClient.shared`, whose
        ///   configuration follows redirects, retries connections, inflates bodies and traces requests itself).
        public init(client: AsyncHTTPClient.HTTPClient) {
            self.client = client
            self.ownsClient = false
        }

        /// Creates a transport with a client of its own, on AsyncHTTPClient's default event loop group.
        ///
        /// Call ``shutdown()`` when you are done with it. A transport released without it starts the client's
        /// shutdown itself, without waiting for it.
        ///
        /// - Parameter configuration: The client's configuration; the default is ``defaultConfiguration``. Its
        ///   `redirectConfiguration` is set to `.disallow` whatever it was: the transport follows redirects itself,
        ///   by its rules.
        public init(configuration: AsyncHTTPClient.HTTPClient.Configuration = defaultConfiguration) {
            var configuration = configuration
            configuration.redirectConfiguration = .disallow
            self.client = AsyncHTTPClient.HTTPClient(configuration: configuration)
            self.ownsClient = true
        }

        /// AsyncHTTPClient's default configuration, except that a connection that cannot be established fails
        /// the request at once instead of being retried until a deadline passes: retrying is the repository's
        /// choice (its retry plugin), as with ``StrataNetwork/URLSessionTransport``; that redirects are followed
        /// by the transport, not by AsyncHTTPClient; and that AsyncHTTPClient traces nothing itself.
        ///
        /// AsyncHTTPClient's own span of a request streamed to a delegate, as this transport streams every one, is
        /// started where the caller's `ServiceContext` does not reach: each request made a trace of its own, beside
        /// the caller's. Trace requests with StrataTracing's `TracingTransport` (a client span under the caller's,
        /// with `traceparent` sent); a client you pass to ``init(client:)`` wants `tracing.tracer = nil` as well.
        public static var defaultConfiguration: AsyncHTTPClient.HTTPClient.Configuration {
            var configuration = AsyncHTTPClient.HTTPClient.Configuration()
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.redirectConfiguration = .disallow
            configuration.tracing.tracer = nil
            return configuration
        }

        /// Waits until AsyncHTTPClient is done with the transport's requests, then shuts down the client the
        /// transport created, waiting until its connections are closed; a client passed to ``init(client:)`` is left
        /// running, for you to shut down once this returns. Nothing the second time.
        ///
        /// The wait ends once AsyncHTTPClient is done with the requests whose callers already have their answers and
        /// has handed their connections back to its pool, or after ``unfinishedRequestsWait`` (a download whose last
        /// write hangs on its disk is ended by AsyncHTTPClient only once the write returns): a client shut down in
        /// between, before a connection was back, can trap in AsyncHTTPClient 1.37. Requests still awaited are
        /// cancelled by the client's shutdown, and one sent on this transport from the moment it is called fails with
        /// ``Strata/StrataError/Code/invalidArgument``.
        public func shutdown() async throws {
            guard let unfinished = state.withLock({ Self.markShutDown(&$0) }) else { return }
            try await Self.quiesce(unfinished, on: client.eventLoopGroup).get()
            if ownsClient { try await client.shutdown() }
        }

        deinit {
            guard ownsClient, let unfinished = state.withLock({ Self.markShutDown(&$0) }) else { return }
            let client = self.client
            Self.quiesce(unfinished, on: client.eventLoopGroup).whenComplete { _ in client.shutdown { _ in } }
        }

        /// The longest a shutdown waits for the requests AsyncHTTPClient still runs after their callers had their
        /// answers.
        static let unfinishedRequestsWait = TimeAmount.seconds(5)

        /// Completes once `unfinished` have ended (or ``unfinishedRequestsWait`` has passed) and then every event loop
        /// of `group` has finished what it was running: AsyncHTTPClient hands a connection back to its pool right
        /// after its request's answer, in the same event loop turn, and 1.37 trapped (`A connection that we don't know
        /// was released`) when its client was shut down from another thread in between — a transport released as
        /// soon as its last answer came (one a test made per test) crashed a CI run.
        private static func quiesce(
            _ unfinished: [EventLoopFuture<Void>],
            on group: any EventLoopGroup
        ) -> EventLoopFuture<Void> {
            let loop = group.any()
            let ended = loop.makePromise(of: Void.self)
            EventLoopFuture.andAllComplete(unfinished, on: loop).cascade(to: ended)
            if !unfinished.isEmpty {
                let timer = loop.scheduleTask(in: unfinishedRequestsWait) { ended.succeed() }
                ended.futureResult.whenComplete { _ in timer.cancel() }
            }
            return ended.futureResult.flatMap {
                EventLoopFuture.andAllComplete(group.makeIterator().map { $0.submit {} }, on: loop)
            }
        }

        /// Whether ``shutdown()`` was called (or, for a transport that owns its client, its release began): its
        /// requests are refused from then on, not sent on a client about to be shut down.
        var isShuttingDown: Bool {
            state.withLock { $0.isShutDown }
        }

        /// Marks the transport shut down: the requests its client's shutdown waits for, or `nil` when it already was.
        private static func markShutDown(_ state: inout State) -> [EventLoopFuture<Void>]? {
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            return Array(state.unfinished.values)
        }

        /// Keeps a request AsyncHTTPClient may still run after its caller had its answer (one the transport failed:
        /// its deadline, its limit, the caller's cancellation) until it has ended, so that ``shutdown()`` waits for it.
        func keepUntilDone<Value>(_ request: EventLoopFuture<Value>) {
            let id = state.withLock { state -> UInt64 in
                state.lastUnfinished &+= 1
                state.unfinished[state.lastUnfinished] = request.map { _ in }
                return state.lastUnfinished
            }
            request.whenComplete { [state] _ in _ = state.withLock { $0.unfinished.removeValue(forKey: id) } }
        }

        /// The requests AsyncHTTPClient still runs after their callers had their answers. For tests.
        package var unfinishedRequests: Int { state.withLock { $0.unfinished.count } }

        /// The most body bytes any one request of this transport has held, in memory or written to its file:
        /// never more than the request's limit. For tests.
        package var peakBodyBytes: Int { state.withLock { $0.peakBodyBytes } }

        /// Records that a request holds `count` body bytes.
        func recordBodyBytes(_ count: Int) {
            state.withLock { $0.peakBodyBytes = max($0.peakBodyBytes, count) }
        }
    }
#endif
