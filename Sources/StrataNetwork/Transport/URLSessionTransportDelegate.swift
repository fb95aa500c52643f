import Foundation
import Strata

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate of ``URLSessionTransport``: one state per task, behind one lock.
///
/// Every transfer ends exactly once: it is removed from the table (in ``finish(_:with:)``, or ``cancel(_:)``), its
/// file's close queued (made once the chunk being written, if any, is) and its continuation resumed. A download's chunk is counted under
/// the lock and written on its file's own queue (``DownloadFileWriter/enqueue(_:then:)``), where the file is also
/// created and closed: a create, write or close that hangs holds that queue's thread, never the delegate queue every
/// transfer shares, nor the watchdog, nor the lock the watchdog ends transfers under; only a download whose backlog
/// passes ``heldBacklog`` holds the delegate queue, until its disk catches up or the transfer ends. One watchdog per
/// delegate enforces every transfer's deadlines: a dispatch timer on a queue of its own, never Swift's cooperative
/// pool (``URLSessionTransportDelegate/watchDeadlines(of:)``). Callbacks that arrive for a finished transfer (the
/// chunks libcurl had buffered before a cancellation took effect) find nothing and are dropped.
///
/// A chunk is appended in place (never by copying the body so far) and only while the body stays within
/// the limit: the chunk that would pass it ends the transfer instead, so no transfer ever holds more than
/// its limit. FoundationNetworking hands every chunk to the delegate queue without back-pressure, so a
/// delegate that keeps up is also what keeps the chunks queued behind it few.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// Where the body goes.
    enum Sink: Sendable {
        case memory
        /// A download before its response: the file is created only for a 2xx status.
        case pendingFile(URL)
        case file(DownloadFileWriter)
        /// A send before its response that keeps a 2xx's body in memory and of any other status the prefix
        /// (``HTTPBodyDestination/successInMemory``).
        case pendingMemory
        /// The body of a download's non-2xx response (or a ``pendingMemory`` send's): its first bytes kept in memory
        /// for the error; no file. The transfer ends once they are in (or the body ends before), whatever the rest of
        /// the body — but for a short body announced as such, read on to its end and dropped
        /// (``HTTPExchange/drainsErrorBody(announced:received:)``).
        case prefix

        func close() {
            if case .file(let writer) = self { writer.close() }
        }

        /// The file a download creates once its response is a 2xx.
        var pendingFile: URL? {
            if case .pendingFile(let url) = self { return url }
            return nil
        }
    }

    /// What one request needs while it runs.
    struct Transfer: Sendable {
        var exchange: HTTPExchange
        var sink: Sink
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        /// The session's task, cancelled when a deadline passes.
        var task: URLSessionTask?
        /// Whether its task was, or is about to be, resumed (``willResume(_:)``): the request may reach the server
        /// from then on.
        var resumed = false
        /// When a byte last moved, either way (the start of the exchange's deadlines before any).
        var lastActivity: ContinuousClock.Instant
        var response: HTTPURLResponse?
        /// The response's header fields (``URLSessionTransportDelegate/headers(of:)``), converted once as its head came,
        /// off the lock; empty before it.
        var headers = HTTPHeaders()
        /// The status of the last redirect: a request a server answered with one may have taken effect, even when the
        /// redirect then failed.
        var redirectStatus: Int?
        /// Whether a redirect followed turned the request, a write, into a `GET` (``HTTPResponse/followedAsGet``).
        var followedAsGet = false
        var expected: Int64?
        /// The body bytes accepted: in ``body`` or written to the file; never more than the exchange's limit.
        var received = 0
        /// The bytes of an error's body read, kept in ``body`` or dropped (``Sink/prefix``).
        var errorBytes = 0
        var body = Data()
    }

    struct State {
        var transfers: [Int: Transfer] = [:]
        /// When the watchdog looks next, while a transfer runs; `nil` once none is left.
        var watchdogWakesAt: ContinuousClock.Instant?
        /// The watchdog's timer, made at its first use: one per delegate, set under the lock, so that the last
        /// setting is the look that is due.
        var watchdogTimer: (any DispatchSourceTimer)?
        /// The most body bytes any one transfer has held (in memory or in its file), for tests.
        var peakBodyBytes = 0
        /// The most bytes any one download has had queued for its file and not yet written, for tests.
        var peakQueuedFileBytes = 0
        /// How many times a download held the delegate queue to wait for its disk, for tests.
        var backlogWaits = 0
        /// The tasks to cancel that ``stop(_:)`` was asked for off the delegate queue, not cancelled yet.
        var pendingStops: [URLSessionTask] = []
    }

    let state = Locked(State())

    /// The clock the transfers' deadlines are read on: the continuous clock, moved on by what a test added; the
    /// watchdog looks at once when it moves (``lookNow()``).
    let clock = DeadlineClock()

    /// The time on the clock the transfers' deadlines are read on.
    var now: ContinuousClock.Instant { clock.now }

    /// The queue the deadlines' watchdog runs on (``watchDeadlines(of:)``): a dispatch queue of its own, never Swift's
    /// cooperative pool, which a busy process (tasks that spin, or block in a synchronous call) can keep from it.
    let watchdogQueue = DispatchQueue(label: "StrataNetwork.URLSessionTransport.deadlines")

    /// The session's delegate queue: serial, every callback of every task on it, and FoundationNetworking's
    /// completion of each task too (``stop(_:)``).
    let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "StrataNetwork.URLSessionTransport"
        return queue
    }()

    override init() {
        super.init()
        // Weak: the clock is the delegate's own, and the look goes with it.
        _ = clock.watch { [weak self] in self?.lookNow() }
    }

    deinit {
        // The timer is the delegate's: set for later, it stops with it.
        state.withLock { $0.watchdogTimer?.cancel() }
    }

    /// The most body bytes any one transfer of this delegate has held, in memory or written to its file:
    /// never more than that transfer's limit.
    var peakBodyBytes: Int { state.withLock { $0.peakBodyBytes } }

    /// The most bytes any one download of this delegate has had queued for its file and not yet written: about
    /// ``heldBacklog`` at most, however slow the disk.
    var peakQueuedFileBytes: Int { state.withLock { $0.peakQueuedFileBytes } }

    /// How many times a download of this delegate held its queue to wait for its disk (its backlog past
    /// ``heldBacklog``), counted as each wait begins.
    var backlogWaits: Int { state.withLock { $0.backlogWaits } }

    func register(_ identifier: Int, transfer: Transfer, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        var transfer = transfer
        transfer.continuation = continuation
        state.withLock { $0.transfers[identifier] = transfer }
    }

    /// Stops a task's transfer, closing its connection: cancels the task on ``queue``, and only while it has not
    /// completed.
    ///
    /// FoundationNetworking completes a task on the delegate queue (the task's completion callback, then its state
    /// set to completed, then its removal from the session's registry), and `URLSessionTask.cancel()` queues a
    /// failure callback that looks the task up in that registry, trapping when it is gone. Cancelled from another
    /// thread — a caller's cancellation, a deadline's watchdog, a download's failed write — as the task completed,
    /// it trapped (seen under load on Linux). On the delegate queue the cancellation comes either before the
    /// completion, or after it, when the task's state says there is nothing left to stop. A stop asked for off the
    /// queue waits in ``State/pendingStops`` for the queue's next operation, or, while a download holds the queue
    /// waiting for its disk, for that wait's next turn (at most 20 ms): a slow disk never keeps another transfer's
    /// connection open.
    func stop(_ task: URLSessionTask) {
        guard OperationQueue.current !== queue else { return Self.cancelIfRunning(task) }
        state.withLock { $0.pendingStops.append(task) }
        queue.addOperation { [self] in runPendingStops() }
    }

    /// Cancels the tasks ``stop(_:)`` was asked for off the delegate queue; on that queue.
    private func runPendingStops() {
        let tasks = state.withLock { state in
            defer { state.pendingStops = [] }
            return state.pendingStops
        }
        for task in tasks { Self.cancelIfRunning(task) }
    }

    /// Cancels `task` unless it completed (or is being cancelled); on the delegate queue.
    private static func cancelIfRunning(_ task: URLSessionTask) {
        guard task.state == .running || task.state == .suspended else { return }
        task.cancel()
    }

    /// Marks a transfer's task resumed, before it is: a caller's cancellation from then on may come after the request
    /// left (``cancel(_:)``). `false` when the transfer has ended (cancelled, or its deadline passed): its task is then
    /// never resumed.
    func willResume(_ identifier: Int) -> Bool {
        update(identifier) { $0.resumed = true } != nil
    }

    /// Ends a transfer because its task was cancelled by the caller: once its task was resumed, the error says
    /// ``Strata/StrataError/mayHaveTakenEffect``, for the request may have reached the server (as a timeout then says
    /// too).
    func cancel(_ identifier: Int) {
        // Taken out under the lock ``willResume(_:)`` marks it under: a task resumed meanwhile is not missed.
        guard let transfer = state.withLock({ $0.transfers.removeValue(forKey: identifier) }) else { return }
        let error = StrataError(
            .cancelled,
            "\(transfer.exchange.description) was cancelled",
            mayHaveTakenEffect: transfer.resumed
        )
        end(transfer, with: .failure(error))
    }

    /// Ends a transfer because a deadline passed.
    func expire(_ identifier: Int, _ expiry: RequestDeadlines.Expiry) {
        // The error is made under the lock, so no copy of the transfer (and of its body) outlives it. An error status
        // whose body was on its way is the answer, with the bytes that came.
        let outcome = state.withLock { state -> Result<HTTPResponse, any Error>? in
            guard let transfer = state.transfers[identifier] else { return nil }
            if let answer = Self.errorResponse(of: transfer) { return .success(answer) }
            return .failure(transfer.exchange.deadlines.error(expiry, request: transfer.exchange.description))
        }
        guard let outcome else { return }
        finish(identifier, with: outcome)
    }

    /// The error status a transfer's head brought, with the first bytes of its body that came (``Sink/prefix``);
    /// `nil` for any other transfer, and for an interim (1xx) head, which is not the answer.
    private static func errorResponse(of transfer: Transfer) -> HTTPResponse? {
        guard case .prefix = transfer.sink, let response = transfer.response, response.statusCode >= 200 else {
            return nil
        }
        return HTTPResponse(
            status: response.statusCode,
            headers: transfer.headers,
            body: transfer.body,
            url: response.url
        )
    }

    func finish(_ identifier: Int, with result: Result<HTTPResponse, any Error>) {
        guard let transfer = state.withLock({ $0.transfers.removeValue(forKey: identifier) }) else { return }
        end(transfer, with: result)
    }

    /// Ends a transfer taken out of the table: closes its file and resumes its caller with `result`.
    private func end(_ transfer: Transfer, with result: Result<HTTPResponse, any Error>) {
        transfer.sink.close()
        transfer.continuation?.resume(
            with: result.map { answer in
                var answer = answer
                answer.followedAsGet = transfer.followedAsGet
                return answer
            }.mapError {
                HTTPExchange.failure($0, afterHead: transfer.response?.statusCode ?? transfer.redirectStatus)
            }
        )
    }

    /// Runs `body` on the transfer in place (no copy of it, nor of its body), under the lock; `nil` when it has ended.
    private func update<Result>(_ identifier: Int, _ body: (inout Transfer) -> Result) -> Result? {
        state.withLock { state in
            guard let index = state.transfers.index(forKey: identifier) else { return nil }
            // Its count read in the same access: reading `values[index]` again would copy the whole transfer.
            let (result, received) = Self.applying(body, to: &state.transfers.values[index])
            state.peakBodyBytes = max(state.peakBodyBytes, received)
            return result
        }
    }

    /// `body`'s result on `transfer`, and the body bytes the transfer has accepted after it.
    private static func applying<Result>(_ body: (inout Transfer) -> Result, to transfer: inout Transfer) -> (
        Result, Int
    ) {
        let result = body(&transfer)
        return (result, transfer.received)
    }

    // MARK: - URLSessionDataDelegate

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let identifier = dataTask.taskIdentifier
        if let status = (response as? HTTPURLResponse)?.statusCode, status < 200 {
            // An interim head (`100 Continue`, `103 Early Hints`): not the answer, which follows (RFC 9110,
            // section 15.2); the transfer's body and sink wait for the final head.
            let now = self.now
            _ = update(identifier) { $0.lastActivity = now }
            completionHandler(.allow)
            return
        }
        // A download's file is created only for a 2xx (a 304 or an error status writes nothing to disk), on its
        // writer's own queue: a create that hangs (a dead network mount) holds that queue, never this one. Its failure
        // is seen when the first chunk or the completion is handled.
        var file: DownloadFileWriter?
        let pendingFile = update(identifier) { $0.sink.pendingFile } ?? nil
        if let pendingFile, let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) {
            file = DownloadFile.createQueued(at: pendingFile)
        }
        let now = self.now
        // Converted here, not under the lock the transfers share, and once for the transfer's every use.
        let headers = (response as? HTTPURLResponse).map(Self.headers(of:)) ?? HTTPHeaders()
        let admitted = update(identifier) {
            Self.admit(response, headers: headers, file: file, into: &$0, now: now)
        }
        // The transfer ended meanwhile (cancelled), after its sink had cleaned up: the writer made just above is
        // this call's own, so its file is closed and removed (on its queue), or a cancelled download would leave it
        // behind.
        if admitted == nil, let file { file.discard() }
        // `nil` twice over: the transfer has ended, or the response is within the limit.
        let failure = admitted ?? nil
        if let failure {
            finish(identifier, with: .failure(failure))
            completionHandler(.cancel)
            stop(dataTask)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let identifier = dataTask.taskIdentifier
        let now = self.now
        switch update(identifier, { Self.accept(data, into: &$0, now: now) }) {
        case .failed(let failure):
            finish(identifier, with: .failure(failure))
            stop(dataTask)
        case .prefixComplete(let response):
            // A download's error needs no more of the body: the rest, however long, is not read.
            finish(identifier, with: .success(response))
            stop(dataTask)
        case .accepted(let report?, let progress):
            report(progress)
        case .accepted(nil, _), nil:
            break
        case .write(let writer, let exchange, let progress):
            // Counted under the lock, written on the file's own queue: a write that hangs holds that queue's thread,
            // never this delegate queue, which every transfer of the session shares, nor the watchdog's lock.
            let queued = writer.enqueue(data) { [weak self] result in
                self?.written(identifier, dataTask, result, exchange, progress)
            }
            let waits = queued > Self.heldBacklog
            state.withLock { state in
                state.peakQueuedFileBytes = max(state.peakQueuedFileBytes, queued)
                if waits { state.backlogWaits += 1 }
            }
            // FoundationNetworking reads on whatever the delegate does: a disk slower than the network is caught up
            // with here, holding the session's callbacks only while this download's backlog is over its bound, and
            // never past the transfer's end (its deadline closes the file, which ends the wait).
            // Stops asked for meanwhile, by callers and deadlines of other transfers, are made while it waits
            // (``stop(_:)``).
            if waits {
                writer.waitForBacklog(atMost: Self.resumedBacklog, every: .milliseconds(20)) { runPendingStops() }
            }
        }
    }

    /// The bytes a download may have queued for its file, not yet written, before the delegate waits for its disk.
    static let heldBacklog = 8 << 20

    /// The queued bytes a waiting delegate lets its download go on at.
    static let resumedBacklog = 2 << 20

    /// Takes a download's written chunk into account: its progress reported and the transfer's activity noted (a disk
    /// that writes is a transfer that moves); a failed write ends the transfer.
    private func written(
        _ identifier: Int,
        _ dataTask: URLSessionDataTask,
        _ result: Result<Void, DownloadFileWriter.Failure>,
        _ exchange: HTTPExchange,
        _ progress: DownloadProgress
    ) {
        if case .failure(let failure) = result {
            finish(identifier, with: .failure(Self.error(of: failure, exchange)))
            stop(dataTask)
            return
        }
        let now = self.now
        guard update(identifier, { $0.lastActivity = now }) != nil else { return }
        exchange.destination.progress?(progress)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // A task no longer running was cancelled by a stop that ran on this queue before this question: its stop is
        // queued on FoundationNetworking's work queue already, and an answer now would reach the task after it,
        // which FoundationNetworking traps on ("not waiting for it"). It gets no answer and ends as cancelled.
        guard task.state == .running else { return }
        // A transfer that ended (its caller cancelled, a deadline passed; the stop is queued behind this question)
        // follows nothing: the redirect is its task's last answer, and nothing more is sent for a call that ended.
        guard state.withLock({ $0.transfers[task.taskIdentifier] != nil }) else { return completionHandler(nil) }
        let redirected = task.currentRequest ?? task.originalRequest
        let origin = response.url ?? redirected?.url
        let original = task.originalRequest
        let followed = RedirectRule.follow(
            request,
            from: origin,
            status: response.statusCode,
            method: redirected?.httpMethod,
            hadBody: original?.httpBody?.isEmpty == false || original?.httpBodyStream != nil
        )
        let now = self.now
        _ = update(task.taskIdentifier) { transfer in
            transfer.lastActivity = now
            transfer.redirectStatus = response.statusCode
            // What the followed request is, not what the status says it should be.
            if let method = redirected?.httpMethod?.uppercased(), method != "GET", method != "HEAD",
                followed?.httpMethod?.uppercased() ?? "GET" == "GET", followed != nil
            {
                transfer.followedAsGet = true
            }
        }
        completionHandler(followed)
    }

    /// Answers an HTTP authentication challenge (a `401` or `407` naming Basic, Digest, NTLM or Negotiate) that
    /// comes after its response, with no credential to propose (FoundationNetworking's way), with the status that
    /// asked: the transfer ends with that answer at once, as on AsyncHTTPClient — left to the default handling,
    /// FoundationNetworking waited for credentials that never came until the idle timeout. Every other challenge
    /// is handled by default: a server's certificate, a credential the session's storage proposes, and a
    /// challenge that comes before its response (Apple's URLSession, which then delivers the 401 itself).
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let identifier = task.taskIdentifier
        let answer = state.withLock { state -> HTTPResponse? in
            guard Self.httpAuthenticationMethods.contains(challenge.protectionSpace.authenticationMethod),
                challenge.proposedCredential == nil,
                let transfer = state.transfers[identifier], let response = transfer.response,
                response.statusCode >= 400
            else { return nil }
            return HTTPResponse(
                status: response.statusCode,
                headers: transfer.headers,
                body: transfer.body,
                url: response.url
            )
        }
        guard let answer else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        finish(identifier, with: .success(answer))
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    /// The challenges an HTTP status makes (`WWW-Authenticate`, `Proxy-Authenticate`).
    private static let httpAuthenticationMethods: Set<String> = [
        NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
        NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
    ]

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let now = self.now
        _ = update(task.taskIdentifier) { $0.lastActivity = now }
    }

    /// Records a transfer's response with its `headers` (and, for a download, where its body goes: `file`, the writer
    /// of a 2xx's); the error when its `Content-Length` exceeds the limit.
    private static func admit(
        _ response: URLResponse,
        headers: HTTPHeaders,
        file: DownloadFileWriter?,
        into transfer: inout Transfer,
        now: ContinuousClock.Instant
    ) -> StrataError? {
        let http = response as? HTTPURLResponse
        // Only a body that comes, as sent, is held to its length: a `HEAD` or a 304 may announce the length of the
        // representation it does not send (RFC 9110, section 8.6), as AsyncHTTPClientTransport reads it too.
        let countable = http.map { transfer.exchange.bodyIsCountable(status: $0.statusCode, headers: headers) }
        let expected = countable != false && response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        transfer.lastActivity = now
        transfer.response = http
        transfer.headers = headers
        transfer.expected = expected
        if case .pendingFile = transfer.sink {
            transfer.sink = file.map { .file($0) } ?? .prefix
        }
        if case .pendingMemory = transfer.sink {
            transfer.sink = http.map { (200..<300).contains($0.statusCode) } == false ? .prefix : .memory
        }
        if case .prefix = transfer.sink { return nil }
        guard let expected, expected > Int64(transfer.exchange.limit) else {
            // A length within the limit is room reserved once (up to a bound: the length is only announced),
            // instead of growing the body chunk by chunk.
            if case .memory = transfer.sink, let expected, transfer.exchange.method != .head {
                transfer.body.reserveCapacity(HTTPExchange.reservation(forContentLength: expected))
            }
            return nil
        }
        return tooLarge(transfer, contentLength: expected)
    }

    /// What became of a chunk.
    private enum Acceptance {
        case accepted((@Sendable (DownloadProgress) -> Void)?, DownloadProgress)
        /// Counted: the caller writes it to the file (off the lock), then reports the progress.
        case write(DownloadFileWriter, HTTPExchange, DownloadProgress)
        case failed(StrataError)
        /// A download's error body has its first bytes: the response, to end the transfer with.
        case prefixComplete(HTTPResponse)
    }

    /// Adds a chunk to a transfer's body, or counts it for its file (the caller writes it), or fails the transfer
    /// when the chunk would take it past its limit (the chunk is then dropped, so the body never exceeds the limit).
    private static func accept(_ data: Data, into transfer: inout Transfer, now: ContinuousClock.Instant)
        -> Acceptance
    {
        transfer.lastActivity = now
        if case .prefix = transfer.sink {
            // An error's body: its first bytes for the message; once they are in, the transfer ends (a short one is
            // read on to its end, the rest dropped).
            let room = HTTPFailure.bodyPrefixLimit - transfer.body.count
            if room > 0 { transfer.body.append(data.prefix(room)) }
            transfer.errorBytes += data.count
            guard transfer.body.count >= HTTPFailure.bodyPrefixLimit,
                !HTTPExchange.drainsErrorBody(announced: transfer.expected, received: transfer.errorBytes),
                let response = errorResponse(of: transfer)
            else {
                return .accepted(nil, DownloadProgress(bytesReceived: 0, expectedBytes: nil))
            }
            return .prefixComplete(response)
        }
        // `received` never exceeds `limit`, so the subtraction cannot overflow.
        guard data.count <= transfer.exchange.limit - transfer.received else {
            return .failed(tooLarge(transfer))
        }
        // A body past its `Content-Length` (libcurl delivers one framed as chunked too): refused, as
        // AsyncHTTPClientTransport's parser refuses it. Both within the limit, so the sum cannot overflow.
        if let expected = transfer.expected, Int64(transfer.received + data.count) > expected {
            return .failed(transfer.exchange.bodyOverran(expected))
        }
        transfer.received += data.count
        let progress = DownloadProgress(bytesReceived: Int64(transfer.received), expectedBytes: transfer.expected)
        if case .file(let writer) = transfer.sink { return .write(writer, transfer.exchange, progress) }
        transfer.body.append(data)
        return .accepted(transfer.exchange.destination.progress, progress)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let identifier = task.taskIdentifier
        guard let transfer = state.withLock({ $0.transfers[identifier] }) else { return }
        if error != nil, let answer = Self.errorResponse(of: transfer) {
            // An error status whose body was cut (a dropped connection): the status is the answer.
            finish(identifier, with: .success(answer))
            return
        }
        if let error {
            let urlError = Self.urlError(from: error)
            let reason = urlError.code == .timedOut ? "timed out" : "failed: \(urlError.localizedDescription)"
            finish(
                identifier,
                with: .failure(StrataError.transportFailure("\(transfer.exchange.description) \(reason)", urlError))
            )
            return
        }
        guard let response = transfer.response else {
            // FoundationNetworking shows no redirect's head to the delegate: a redirect it could not follow (no
            // usable `Location`) ends here, and is the answer, as on AsyncHTTPClient — not a lost connection.
            if let redirect = task.response as? HTTPURLResponse, (300..<400).contains(redirect.statusCode) {
                let headers = Self.headers(of: redirect)
                let answer = HTTPResponse(
                    status: redirect.statusCode,
                    headers: headers,
                    body: Data(),
                    url: redirect.url
                )
                finish(identifier, with: .success(answer))
                return
            }
            finish(identifier, with: .failure(transfer.exchange.noResponse()))
            return
        }
        let headers = transfer.headers
        if let expected = transfer.expected, Int64(transfer.received) < expected,
            Self.bodyIsCountable(transfer, headers)
        {
            finish(identifier, with: .failure(transfer.exchange.bodyEnded(after: transfer.received, of: expected)))
            return
        }
        let answer = HTTPResponse(status: response.statusCode, headers: headers, body: transfer.body, url: response.url)
        guard case .file(let writer) = transfer.sink else { return finish(identifier, with: .success(answer)) }
        // A download is done once its queued chunks are on disk (or its file could not be created, or a chunk
        // written).
        let exchange = transfer.exchange
        writer.whenWritten { [weak self] failure in
            self?.finish(identifier, with: failure.map { .failure(Self.error(of: $0, exchange)) } ?? .success(answer))
        }
    }

    // MARK: - Helpers

    /// The error of a download whose file could not be created (the `io` error that names it, as it is) or written.
    private static func error(of failure: DownloadFileWriter.Failure, _ exchange: HTTPExchange) -> StrataError {
        switch failure {
        case .create(let error): error
        case .write(let error): exchange.writeFailed(error)
        }
    }

    /// The error of a transfer whose body is larger than its limit, with its response's details when it came;
    /// `contentLength` when the response's `Content-Length` said so.
    private static func tooLarge(_ transfer: Transfer, contentLength: Int64? = nil) -> StrataError {
        transfer.exchange.tooLarge(
            contentLength: contentLength,
            status: transfer.response?.statusCode,
            headers: transfer.headers
        )
    }

    /// Whether the received byte count can be compared with `Content-Length`
    /// (``HTTPExchange/bodyIsCountable(status:headers:)``); not for a download's error body, whose first bytes only
    /// are kept.
    private static func bodyIsCountable(_ transfer: Transfer, _ headers: HTTPHeaders) -> Bool {
        guard let status = transfer.response?.statusCode else { return false }
        if case .prefix = transfer.sink { return false }
        return transfer.exchange.bodyIsCountable(status: status, headers: headers)
    }

    /// The response's headers. FoundationNetworking hands repeated fields joined with `", "`; the ones that
    /// can be told apart again (`Set-Cookie`, and list fields such as `Link` and `Cache-Control`) are split
    /// back into one field each, in order (``HTTPHeaders/splittingJoinedFields(_:)``).
    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        HTTPHeaders.splittingJoinedFields(
            response.allHeaderFields.map { (name: text(of: $0.key.base), value: text(of: $0.value)) }
        )
    }

    /// A header table's name or value as text: FoundationNetworking's are strings, taken as they are, without the
    /// generic printing `String(describing:)` goes through.
    private static func text(of value: Any) -> String {
        value as? String ?? String(describing: value)
    }

    /// The `URLError` of a failed transfer, with its code and the URL that failed, without the user and password
    /// that URL may carry: FoundationNetworking keeps the whole URL in the error's `userInfo`, which a log printing
    /// the error (``Strata/StrataError/detailedDescription()``) would write out.
    static func urlError(from error: any Error) -> URLError {
        let code: URLError.Code
        let failingURL: URL?
        if let urlError = error as? URLError {
            (code, failingURL) = (urlError.code, urlError.failingURL)
        } else {
            let nsError = error as NSError
            guard nsError.domain == NSURLErrorDomain else { return URLError(.unknown) }
            code = URLError.Code(rawValue: nsError.code) ?? .unknown
            failingURL = nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL
        }
        guard let url = failingURL?.withoutCredentials else { return URLError(code) }
        return URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: url])
    }
}
