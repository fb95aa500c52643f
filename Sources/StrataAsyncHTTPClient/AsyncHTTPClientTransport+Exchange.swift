#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import Strata
    import StrataNetwork

    extension AsyncHTTPClientTransport {
        /// How the first of a request's two tasks ended: the response arrived whole, or a deadline passed.
        private enum Outcome: Sendable {
            case response(HTTPResponse)
            case expired(RequestDeadlines.Expiry)
        }

        /// What one request needs while its response streams in.
        struct Transfer: Sendable {
            /// The request, as `METHOD URL`.
            var description: String
            var request: HTTPRequest
            var url: URL
            var destination: ResponseBodySink.Destination
            var limit: Int
            var progress: (@Sendable (DownloadProgress) -> Void)?
            var activity: TransferActivity
            /// AsyncHTTPClient's own deadline: a backstop a minute past Strata's, which the transport enforces.
            var backstop: NIODeadline
        }

        /// Sends a validated request and streams its response into `destination`, racing it against the
        /// request's deadlines; every failure comes out as a ``Strata/StrataError``.
        func exchange(
            _ request: HTTPRequest,
            into destination: ResponseBodySink.Destination,
            maximumBodySize: Int,
            progress: (@Sendable (DownloadProgress) -> Void)?
        ) async throws -> HTTPResponse {
            try request.validate()
            let url = try request.url()
            let description = "\(request.method) \(url.absoluteString)"
            let deadlines = RequestDeadlines(
                idle: request.timeout ?? StrataNetwork.HTTPClient.Configuration.defaultTimeout,
                total: request.totalTimeout ?? StrataNetwork.HTTPClient.Configuration.defaultTotalTimeout
            )
            let backstop = RequestDeadlines.backstop(idle: deadlines.idle, total: deadlines.total)
            let transfer = Transfer(
                description: description,
                request: request,
                url: url,
                destination: destination,
                limit: maximumBodySize,
                progress: progress,
                activity: TransferActivity(start: deadlines.start),
                backstop: .now() + .seconds(Int64(backstop))
            )
            do {
                return try await withThrowingTaskGroup(of: Outcome.self) { group in
                    group.addTask { .response(try await self.receive(transfer)) }
                    group.addTask { try await Self.watch(deadlines, transfer.activity) }
                    // The loser is cancelled: a request past its deadline closes its connection, and a finished
                    // request stops its timer.
                    defer { group.cancelAll() }
                    switch try await group.next() {
                    case .response(let response): return response
                    case .expired(let expiry): throw deadlines.error(expiry, request: description)
                    case nil: throw StrataError(.network, "\(description) ended without a response")
                    }
                }
            } catch {
                throw Self.strataError(from: error, request: description)
            }
        }

        /// Sleeps until the request's next deadline, and returns the one that passed.
        private static func watch(_ deadlines: RequestDeadlines, _ activity: TransferActivity) async throws -> Outcome {
            while true {
                switch deadlines.verdict(lastActivity: activity.lastActivity, now: .now) {
                case .wait(let instant):
                    try await Task.sleep(until: instant, tolerance: .milliseconds(1), clock: .continuous)
                case .expired(let expiry):
                    return .expired(expiry)
                }
            }
        }

        /// Sends the request and reads its body chunk by chunk into the transfer's sink.
        private func receive(_ transfer: Transfer) async throws -> HTTPResponse {
            let outgoing = transfer.request.clientRequest(url: transfer.url, activity: transfer.activity)
            let response = try await client.execute(outgoing, deadline: transfer.backstop)
            transfer.activity.touch()
            let headers = StrataNetwork.HTTPHeaders(
                response.headers.map { StrataNetwork.HTTPHeaders.Field(name: $0.name, value: $0.value) }
            )
            let status = Int(response.status.code)
            var sink = try ResponseBodySink(
                transfer.destination,
                status: status,
                headers: headers,
                method: transfer.request.method,
                limit: transfer.limit,
                description: transfer.description
            )
            defer { sink.close() }
            for try await buffer in response.body {
                transfer.activity.touch()
                try buffer.withUnsafeReadableBytes { try sink.accept($0) }
                recordBodyBytes(sink.received)
                if let progress = transfer.progress, let report = sink.progress { progress(report) }
            }
            try sink.finish()
            return HTTPResponse(status: status, headers: headers, body: sink.body, url: response.url ?? transfer.url)
        }
    }
#endif
