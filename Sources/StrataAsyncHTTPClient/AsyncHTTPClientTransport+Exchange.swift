#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import Strata
    import StrataNetwork

    extension AsyncHTTPClientTransport {
        /// Sends a request and streams its response into `destination`, within its deadlines; every failure
        /// comes out as a ``Strata/StrataError``.
        ///
        /// Everything that decides the outcome runs on the request's event loop, in its ``TransferDelegate``: the
        /// bytes are counted as they arrive and the deadlines are timers of that loop, so a busy cooperative pool
        /// can delay the caller, never make a request look idle.
        package func exchange(
            _ request: HTTPRequest,
            into destination: HTTPBodyDestination,
            maximumBodySize: Int
        ) async throws -> HTTPResponse {
            let url = try request.validatedURL()
            let exchange = HTTPExchange(request, url: url, into: destination, maximumBodySize: maximumBodySize)
            let delegate = TransferDelegate(exchange, url: url) { [weak self] in self?.recordBodyBytes($0) }
            // AsyncHTTPClient's own deadline is a backstop a minute past Strata's.
            let backstop = RequestDeadlines.backstop(idle: exchange.deadlines.idle, total: exchange.deadlines.total)
            do {
                let outgoing = try request.clientRequest(url: url)
                return try await withTaskCancellationHandler {
                    let task = client.execute(
                        request: outgoing,
                        delegate: delegate,
                        deadline: .now() + .seconds(Int64(backstop))
                    )
                    defer { delegate.end() }
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
