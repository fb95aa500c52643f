#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import Strata
    import StrataNetwork

    extension AsyncHTTPClientTransport {
        /// The most redirects one exchange follows, as AsyncHTTPClient's default.
        static let maximumRedirects = 5

        /// Sends a request and streams its response into `destination`, within its deadlines, following redirects
        /// (``StrataNetwork/RedirectRule``); every failure comes out as a ``Strata/StrataError``.
        ///
        /// The transport follows redirects itself, one request after the other, each on its own delegate: a request
        /// that AsyncHTTPClient redirected and that then failed (its deadline, while the redirect's body trickled)
        /// kept its connection leased until the server closed it. A client that follows redirects itself (one passed
        /// to ``init(client:)`` with AsyncHTTPClient's default configuration) still does, before the transport sees
        /// its answer.
        package func exchange(
            _ request: HTTPRequest,
            into destination: HTTPBodyDestination,
            maximumBodySize: Int
        ) async throws -> HTTPResponse {
            var (request, url) = (request, try request.validatedURL())
            var exchange = HTTPExchange(
                request,
                url: url,
                into: destination,
                maximumBodySize: maximumBodySize,
                start: deadlineClock.now
            )
            var visited: Set<String> = [url.absoluteString]
            var redirect: (status: Int, turnedIntoGet: Bool)?
            while true {
                var response = try await exchangeOnce(request, url: url, exchange, after: redirect?.status)
                if redirect?.turnedIntoGet == true { response.followedAsGet = true }
                guard
                    let target = TransferDelegate.redirectTarget(
                        status: response.status,
                        headers: response.headers,
                        from: url
                    ),
                    let (next, turnedIntoGet) = RedirectRule.follow(
                        request,
                        sentTo: url,
                        status: response.status,
                        to: target
                    )
                else { return response }
                redirect = (response.status, turnedIntoGet || redirect?.turnedIntoGet == true)
                guard visited.count <= Self.maximumRedirects, visited.insert(target.absoluteString).inserted else {
                    let reason: HTTPClientError =
                        visited.count > Self.maximumRedirects ? .redirectLimitReached : .redirectCycleDetected
                    throw HTTPExchange.failure(
                        Self.strataError(from: reason, request: exchange.description),
                        afterHead: response.status
                    )
                }
                if Task.isCancelled {
                    // The server answered the request with the redirect: it may have carried it out.
                    let cancelled = StrataError(.cancelled, "\(exchange.description) was cancelled")
                    throw HTTPExchange.failure(cancelled, afterHead: response.status)
                }
                url = try next.validatedURL()
                exchange = exchange.redirected(next, to: url)
                request = next
            }
        }

        /// Sends one request of an exchange and streams its response, a redirect's included, into the exchange's
        /// destination.
        ///
        /// Everything that decides the outcome runs on the request's event loop, in its ``TransferDelegate``: the
        /// bytes are counted as they arrive and the deadlines are timers of that loop, so a busy cooperative pool
        /// can delay the caller, never make a request look idle.
        ///
        /// - Parameters:
        ///   - request: The request.
        ///   - url: Its URL, validated.
        ///   - exchange: The exchange it belongs to.
        ///   - redirectStatus: The status of the redirect that led to it, if one did.
        private func exchangeOnce(
            _ request: HTTPRequest,
            url: URL,
            _ exchange: HTTPExchange,
            after redirectStatus: Int?
        ) async throws -> HTTPResponse {
            let delegate = TransferDelegate(
                exchange,
                url: url,
                after: redirectStatus,
                clientMayFollowRedirects: !ownsClient,
                clock: deadlineClock
            ) { [weak self] in
                self?.recordBodyBytes($0)
            }
            // AsyncHTTPClient's own deadline is a backstop a minute past Strata's.
            let backstop = RequestDeadlines.backstop(idle: exchange.deadlines.idle, total: exchange.deadlines.total)
            do {
                if isShuttingDown { throw HTTPClientError.alreadyShutdown }
                let outgoing = try request.clientRequest(url: url)
                return try await withTaskCancellationHandler {
                    // Cancelled before it is handed over, the request is never sent.
                    if let failure = delegate.handOver() { throw failure }
                    let task = client.execute(
                        request: outgoing,
                        delegate: delegate,
                        deadline: .now() + .seconds(Int64(backstop))
                    )
                    defer {
                        delegate.end()
                        keepUntilDone(task.futureResult)
                    }
                    var answer = try await delegate.start(task).get()
                    answer.followedAsGet = delegate.followedAsGet
                    return answer
                } onCancel: {
                    delegate.cancel()
                }
            } catch {
                if var response = delegate.errorResponse {
                    response.followedAsGet = delegate.followedAsGet
                    return response
                }
                guard let failure = delegate.failure else {
                    // Ended by AsyncHTTPClient (a lost connection, the client shut down) after the request left: it
                    // may have taken effect, whatever the error says.
                    var lost = Self.strataError(from: error, request: exchange.description)
                    if delegate.hasSentHead { lost.mayHaveTakenEffect = true }
                    throw HTTPExchange.failure(lost, afterHead: delegate.status)
                }
                throw HTTPExchange.failure(failure, afterHead: delegate.status)
            }
        }
    }
#endif
