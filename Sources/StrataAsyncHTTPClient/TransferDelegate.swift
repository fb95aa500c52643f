#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import Strata
    import StrataNetwork

    /// The AsyncHTTPClient delegate of one request of ``AsyncHTTPClientTransport``: it counts the bytes as they
    /// move, keeps the body within its limit, and runs the request's deadline timer, all on the request's event
    /// loop.
    ///
    /// A request ends with the first failure the delegate records (a deadline, the limit, the file, the caller's
    /// cancellation): the AsyncHTTPClient task is failed with it, which closes its connection. A download's file
    /// is created and its chunks are written on the download's own queue, with no lock held (a disk that hangs holds
    /// that queue's thread, never the event loop, NIO's shared thread pool, or the lock its deadline timer takes), and
    /// the next chunk is read only once the last one is written.
    final class TransferDelegate: HTTPClientResponseDelegate, Sendable {
        typealias Response = StrataNetwork.HTTPResponse
        typealias ClientTask = AsyncHTTPClient.HTTPClient.Task<StrataNetwork.HTTPResponse>

        private struct State {
            /// When a byte last moved, either way (the start before any).
            var lastActivity: ContinuousClock.Instant
            /// The URL that answered.
            var url: URL
            var status = 0
            /// The status of the last redirect followed: a request a server answered with one may have taken effect,
            /// even when the redirect then failed.
            var redirectStatus: Int?
            /// Whether a redirect followed turned the request, a write, into a `GET`.
            var followedAsGet = false
            /// Whether the request's head was written to the connection: a request that left may have taken effect.
            var hasSentHead = false
            /// Whether the request was handed to AsyncHTTPClient (``handOver()``): it may reach the server from then on.
            var isHandedOver = false
            var headers = StrataNetwork.HTTPHeaders()
            /// Where the body goes, once the response head has come.
            var sink: ResponseBodySink?
            var task: ClientTask?
            /// The request's outcome: the task's result, or the first failure the transport decided, whichever comes
            /// first (``start(_:)``).
            var outcome: EventLoopPromise<Response>?
            var timer: Scheduled<Void>?
            /// The number of the look the clock runs when a test moves it on (``DeadlineClock/watch(_:)``), while the
            /// task runs.
            var clockLook: UInt64?
            /// When the scheduled look at the deadlines is due: a look that runs well after it found the process stood
            /// still, which is not idle time (`RequestDeadlines.lastActivity(_:afterLookDueAt:ranAt:)`).
            var lookDueAt: ContinuousClock.Instant?
            /// The first failure the transport decided.
            var failure: StrataError?
            /// The response that ended the request early: a download's error, once the first bytes of its body
            /// were in, or a redirect that is not followed.
            var errorResponse: Response?
            var hasEnded = false
        }

        /// Where a download's file is made and written, one step after the other (``onFileQueue(_:_:)``).
        private let fileQueue = DispatchQueue(label: "StrataAsyncHTTPClient.download")

        /// The request, where its body goes, its limit and its deadlines.
        private let exchange: HTTPExchange
        private let recordBodyBytes: @Sendable (Int) -> Void
        private let clientMayFollowRedirects: Bool
        /// The clock the deadlines are read on: the transport's.
        private let clock: DeadlineClock
        private let state: Locked<State>

        /// Creates the delegate of one request.
        ///
        /// - Parameters:
        ///   - exchange: The request, where its body goes, its limit and its deadlines.
        ///   - url: The request's URL.
        ///   - redirectStatus: The status of the last redirect the transport followed to this request, if any.
        ///   - clientMayFollowRedirects: Whether the client may follow redirects itself (one the caller gave the
        ///     transport): a redirect the transports' rule does not follow then ends the request at its head.
        ///   - clock: The clock the deadlines are read on.
        ///   - recordBodyBytes: Told how many body bytes the request holds after each chunk.
        init(
            _ exchange: HTTPExchange,
            url: URL,
            after redirectStatus: Int? = nil,
            clientMayFollowRedirects: Bool = true,
            clock: DeadlineClock,
            recordBodyBytes: @escaping @Sendable (Int) -> Void
        ) {
            self.exchange = exchange
            self.clientMayFollowRedirects = clientMayFollowRedirects
            self.clock = clock
            self.recordBodyBytes = recordBodyBytes
            // The idle clock starts with this request: the exchange's own start may be a redirect ago.
            self.state = Locked(State(lastActivity: clock.now, url: url, redirectStatus: redirectStatus))
        }

        /// The failure that ended the request, if the transport decided it.
        var failure: StrataError? { state.withLock { $0.failure } }

        /// The status of the response head that came, if one did, or else of the last redirect followed.
        var status: Int? { state.withLock { $0.status == 0 ? $0.redirectStatus : $0.status } }

        /// Whether a redirect followed turned the request, a write, into a `GET`.
        var followedAsGet: Bool { state.withLock { $0.followedAsGet } }

        /// Whether the request's head was written to the connection.
        var hasSentHead: Bool { state.withLock { $0.hasSentHead } }

        /// The response that ended the request early (the task then fails, and the transport answers this instead):
        /// a download's error, once the first bytes of its body were in, or a redirect that is not followed. Or the
        /// error status whose body was on its way when the request failed for another reason than its cancellation
        /// (a dropped connection, a deadline): its status and first bytes are the answer.
        var errorResponse: Response? { state.withLock { $0.errorResponse } }

        /// Starts the deadline timer of the running task, and returns the request's outcome; a request cancelled
        /// before it started is failed at once.
        ///
        /// The outcome is the task's result, or the first failure the transport decides (a deadline, the caller's
        /// cancellation) as soon as it is decided: once a response's end is in, AsyncHTTPClient fails its task only
        /// after the delegate's last chunk is handled, and a disk that hangs on that write would hold the caller past
        /// every deadline.
        func start(_ task: ClientTask) -> EventLoopFuture<Response> {
            let outcome = task.eventLoop.makePromise(of: Response.self)
            task.futureResult.cascade(to: outcome)
            let look = clock.watch { [weak self] in self?.lookNow() }
            let failure = state.withLock { state -> StrataError? in
                state.task = task
                state.outcome = outcome
                state.clockLook = look
                // The first look is due now: one that runs late found the process stood still, as a later one may.
                state.lookDueAt = clock.now
                return state.failure
            }
            if let failure {
                task.fail(reason: failure)
                outcome.fail(failure)
            } else {
                task.eventLoop.execute { self.watch(task) }
            }
            return outcome.futureResult
        }

        /// Stops the timer and closes the file, once the task's result is in.
        func end() {
            let (timer, sink) = state.withLock { state in
                state.hasEnded = true
                // An error status whose body was on its way: its status and first bytes are the answer to a failure
                // since (a dropped connection, a deadline), unless the caller cancelled.
                // (Not a redirect's body: the request failed before its redirect could be followed.)
                if state.errorResponse == nil, let sink = state.sink, sink.isErrorBody, !sink.isRedirect,
                    state.status >= 200, state.failure?.code != .cancelled
                {
                    state.errorResponse = Response(
                        status: state.status,
                        headers: state.headers,
                        body: sink.body,
                        url: state.url
                    )
                }
                defer {
                    state.timer = nil
                    state.sink = nil
                    state.clockLook = nil
                }
                if let look = state.clockLook { clock.stopWatching(look) }
                return (state.timer, state.sink)
            }
            timer?.cancel()
            sink?.close()
        }

        /// Marks the request handed to AsyncHTTPClient, before it is: a caller's cancellation from then on may come
        /// after the request left (``cancel()``). The failure that ended it already (its cancellation), if one did: it is
        /// then never handed over.
        func handOver() -> StrataError? {
            state.withLock { state in
                if state.failure == nil { state.isHandedOver = true }
                return state.failure
            }
        }

        /// Ends the request because the calling task was cancelled: once it was handed to AsyncHTTPClient, the error
        /// says ``Strata/StrataError/mayHaveTakenEffect``, for the request may have reached the server (as a timeout
        /// then says too).
        func cancel() {
            fail(StrataError(.cancelled, "\(exchange.description) was cancelled"), isCallersCancellation: true)
        }

        /// Records the first failure and fails the task with it; the caller's cancellation says
        /// ``Strata/StrataError/mayHaveTakenEffect`` when the request was handed over.
        private func fail(_ error: StrataError, isCallersCancellation: Bool = false) {
            var error = error
            let (task, outcome) = state.withLock { state -> (ClientTask?, EventLoopPromise<Response>?) in
                guard state.failure == nil else { return (nil, nil) }
                if isCallersCancellation, state.isHandedOver { error.mayHaveTakenEffect = true }
                state.failure = error
                return (state.task, state.outcome)
            }
            task?.fail(reason: error)
            // A promise already completed (the task's result came first) stays as it is.
            outcome?.fail(error)
        }

        private func touch() {
            let now = clock.now
            state.withLock { $0.lastActivity = max($0.lastActivity, now) }
        }

        /// Looks at the deadlines on the task's event loop: fails the request once one has passed, and otherwise
        /// schedules the next look.
        ///
        /// A look that runs well after it was due found the process stood still (stopped, swapped out, starved):
        /// that time is not counted as idle, as `URLSessionTransport` does not count it either. The bytes that
        /// came meanwhile may not have been read yet: the event loop can run this look before it reads the socket of
        /// a connection on another loop, or before a download's written chunk lets it read on.
        private func watch(_ task: ClientTask) {
            let now = clock.now
            let verdict = state.withLock { state -> RequestDeadlines.Verdict? in
                guard !state.hasEnded else { return nil }
                if let due = state.lookDueAt {
                    state.lastActivity = RequestDeadlines.lastActivity(
                        state.lastActivity,
                        afterLookDueAt: due,
                        ranAt: now
                    )
                }
                return exchange.deadlines.verdict(lastActivity: state.lastActivity, now: now)
            }
            switch verdict {
            case nil:
                return
            case .wait(let instant):
                let timer = task.eventLoop.scheduleTask(in: Self.timeAmount(instant - now)) { self.watch(task) }
                let (hasEnded, replaced) = state.withLock { state in
                    defer {
                        state.timer = timer
                        state.lookDueAt = instant
                    }
                    return (state.hasEnded, state.timer)
                }
                // A look the clock ran at once (``lookNow()``) leaves the one scheduled before it to be cancelled.
                replaced?.cancel()
                if hasEnded { timer.cancel() }
            case .expired(let expiry):
                fail(exchange.deadlines.error(expiry, request: exchange.description))
            }
        }

        /// Looks at the deadlines at once, on the task's event loop: the clock was moved on (a test,
        /// ``DeadlineClock/advance(by:)``). The look is due now, so the time the clock moved is not taken for a stall
        /// of the process.
        private func lookNow() {
            let task = state.withLock { state -> ClientTask? in
                guard !state.hasEnded, let task = state.task else { return nil }
                state.lookDueAt = clock.now
                return task
            }
            guard let task else { return }
            task.eventLoop.execute { self.watch(task) }
        }

        /// A duration as NIO's `TimeAmount`; deadlines are at most ``RequestDeadlines/longest``, so it cannot
        /// overflow.
        private static func timeAmount(_ duration: Duration) -> TimeAmount {
            let (seconds, attoseconds) = max(duration, .zero).saturatedComponents
            return .nanoseconds(min(seconds, 2_000_000_000) * 1_000_000_000 + attoseconds / 1_000_000_000)
        }

        // MARK: - HTTPClientResponseDelegate

        func didSendRequestHead(task: ClientTask, _ head: HTTPRequestHead) {
            touch()
            state.withLock { $0.hasSentHead = true }
        }

        func didSendRequestPart(task: ClientTask, _ part: IOData) {
            touch()
        }

        /// Records the URL that answered; on a client that may follow redirects itself, a response AsyncHTTPClient
        /// would follow as a redirect where the transports' rule does not (a 304 with a `Location`, a 305, a step down
        /// from `https` to `http`) ends the request, its head the answer (its body, a 304 has none, is not read). On
        /// the transport's own client, which follows none, such a response is an answer as any other, body included.
        func didVisitURL(task: ClientTask, _ request: AsyncHTTPClient.HTTPClient.Request, _ head: HTTPResponseHead) {
            // A redirect's head is bytes that moved: the idle clock starts again, as for any other head.
            touch()
            let unfollowed = clientMayFollowRedirects && Self.isUnfollowedRedirect(head, from: request.url)
            state.withLock { state in
                state.url = request.url
                if (300..<400).contains(head.status.code) { state.redirectStatus = Int(head.status.code) }
                // What AsyncHTTPClient sends, not what the status says it should: a later hop's request is a `GET`
                // where the exchange is a write.
                if request.method == .GET, exchange.method != .get, exchange.method != .head {
                    state.followedAsGet = true
                }
                if unfollowed {
                    state.errorResponse = Response(
                        status: Int(head.status.code),
                        headers: Self.headers(of: head),
                        body: Data(),
                        url: request.url
                    )
                }
            }
            if unfollowed {
                task.fail(reason: StrataError(.cancelled, "\(exchange.description): the redirect is not followed"))
            }
        }

        func didReceiveHead(task: ClientTask, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
            touch()
            let status = Int(head.status.code)
            let headers = Self.headers(of: head)
            guard case .file = exchange.destination else {
                return task.eventLoop.makeCompletedFuture { try receive(status: status, headers: headers) }
            }
            // A download's file is created off the event loop; its body is read once the file is there.
            return onFileQueue(task.eventLoop) { try self.receive(status: status, headers: headers) }
        }

        /// Prepares where the response's body goes; on failure (the limit, the file) ends the request.
        ///
        /// A download's head is handled on its file queue, which may get to it after the request ended (its idle
        /// timeout, its cancellation): then no file is made, and one made while it ended is removed — the download's
        /// own clean-up ran before it existed.
        private func receive(status: Int, headers: StrataNetwork.HTTPHeaders) throws {
            // The head is recorded first: a request whose body cannot be received (over the limit, a file that
            // cannot be made) was still answered, and may have taken effect (``HTTPExchange/failure(_:afterHead:)``).
            let (hasEnded, url) = state.withLock { state -> (Bool, URL) in
                guard !state.hasEnded else { return (true, state.url) }
                state.status = status
                state.headers = headers
                return (false, state.url)
            }
            guard !hasEnded else { return }
            let sink: ResponseBodySink
            do {
                let isRedirect = Self.redirectTarget(status: status, headers: headers, from: url) != nil
                sink = try ResponseBodySink(exchange, status: status, headers: headers, isRedirect: isRedirect)
            } catch {
                let failure = StrataError.io("Cannot receive the body of \(exchange.description)", underlying: error)
                fail(failure)
                throw failure
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.hasEnded else { return false }
                state.sink = sink
                return true
            }
            if !admitted { sink.discard() }
        }

        func didReceiveBodyPart(task: ClientTask, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
            touch()
            guard case .file = exchange.destination else {
                return task.eventLoop.makeCompletedFuture { try accept(buffer) }
            }
            // A file is written off the event loop; the next chunk is read once this one is on disk.
            return onFileQueue(task.eventLoop) { try self.accept(buffer) }
        }

        /// Runs `work`, a download's file work, on the download's own queue, and completes the returned future on
        /// `eventLoop` once it is done: a disk that hangs holds that queue's thread, never the event loop, nor NIO's
        /// shared thread pool (one thread a core, which as many hung writes as cores held, and every other download of
        /// the process with them, whichever its disk).
        private func onFileQueue(
            _ eventLoop: any EventLoop,
            _ work: @escaping @Sendable () throws -> Void
        ) -> EventLoopFuture<Void> {
            let promise = eventLoop.makePromise(of: Void.self)
            fileQueue.async { promise.completeWith(Result { try work() }) }
            return promise.futureResult
        }

        /// Adds a chunk to the body or the file; on failure (the limit, the file) ends the request.
        private func accept(_ buffer: ByteBuffer) throws {
            do {
                let (received, report, writer) = try state.withLock { state in
                    let writer = try buffer.withUnsafeReadableBytes { try state.sink?.accept($0) }
                    if let sink = state.sink, sink.hasErrorPrefix {
                        // A download's error needs no more of the body: the rest, however long, is not read.
                        state.errorResponse = Response(
                            status: state.status,
                            headers: state.headers,
                            body: sink.body,
                            url: state.url
                        )
                        throw StrataError(.cancelled, "\(exchange.description): the error's body is not read further")
                    }
                    return (state.sink?.received ?? 0, state.sink?.progress, writer)
                }
                // Counted under the lock, written after it: a write that hangs holds the download's queue only.
                if let writer {
                    do {
                        try buffer.withUnsafeReadableBytes { bytes throws(StrataError) in try writer.write(bytes) }
                    } catch {
                        throw exchange.writeFailed(error)
                    }
                }
                // A write that returns after the request ended, or once its failure was decided (its deadline, with
                // the disk hung) reports nothing: the caller was told of the failure, or is about to be, and hears no
                // progress after it.
                guard !state.withLock({ $0.hasEnded || $0.failure != nil }) else { return }
                recordBodyBytes(received)
                if let progress = exchange.destination.progress, let report { progress(report) }
            } catch {
                let failure =
                    error as? StrataError
                    ?? StrataError.io("Receiving \(exchange.description) failed", underlying: error)
                fail(failure)
                throw failure
            }
        }

        func didReceiveError(task: ClientTask, _ error: any Error) {}

        func didFinishRequest(task: ClientTask) throws -> StrataNetwork.HTTPResponse {
            try state.withLock { state in
                guard let sink = state.sink else {
                    throw exchange.noResponse()
                }
                try sink.finish()
                return StrataNetwork.HTTPResponse(
                    status: state.status,
                    headers: state.headers,
                    body: sink.body,
                    url: state.url
                )
            }
        }
    }
#endif
