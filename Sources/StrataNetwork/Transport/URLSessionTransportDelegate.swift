import Foundation
import Strata

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate of ``URLSessionTransport``: one state per task, behind one lock.
///
/// Every transfer ends exactly once, in ``finish(_:with:)``: it is removed from the table, its file is
/// closed and its continuation resumed. Callbacks that arrive for a finished transfer (the chunks
/// libcurl had buffered before a cancellation took effect) find nothing and are dropped.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// Where the body goes.
    enum Sink: Sendable {
        case memory
        case file(FileHandle)

        func close() {
            if case .file(let handle) = self { try? handle.close() }
        }
    }

    /// What one request needs while it runs.
    struct Transfer: Sendable {
        var description: String
        var method: HTTPMethod
        var limit: Int
        var sink: Sink
        var progress: (@Sendable (DownloadProgress) -> Void)?
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        var response: HTTPURLResponse?
        var expected: Int64?
        var received: Int64 = 0
        var body = Data()

        init(
            description: String,
            method: HTTPMethod,
            limit: Int,
            sink: Sink,
            progress: (@Sendable (DownloadProgress) -> Void)?
        ) {
            self.description = description
            self.method = method
            self.limit = limit
            self.sink = sink
            self.progress = progress
        }
    }

    private let transfers = Locked<[Int: Transfer]>([:])

    func register(_ identifier: Int, transfer: Transfer, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        var transfer = transfer
        transfer.continuation = continuation
        transfers.withLock { $0[identifier] = transfer }
    }

    /// Ends a transfer because its task was cancelled by the caller.
    func cancel(_ identifier: Int) {
        let description = transfers.withLock { $0[identifier]?.description } ?? "request"
        finish(identifier, with: .failure(StrataError(.cancelled, "\(description) was cancelled")))
    }

    private func finish(_ identifier: Int, with result: Result<HTTPResponse, any Error>) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: identifier) }) else { return }
        transfer.sink.close()
        transfer.continuation?.resume(with: result)
    }

    // MARK: - URLSessionDataDelegate

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let identifier = dataTask.taskIdentifier
        let expected = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        let failure: StrataError? = transfers.withLock { transfers in
            guard var transfer = transfers[identifier] else { return nil }
            transfer.response = response as? HTTPURLResponse
            transfer.expected = expected
            transfers[identifier] = transfer
            guard let expected, expected > Int64(transfer.limit) else { return nil }
            return StrataError(
                .tooLarge,
                "\(transfer.description): Content-Length \(expected) exceeds the limit of \(transfer.limit) bytes",
                httpStatus: (response as? HTTPURLResponse)?.statusCode
            )
        }
        if let failure {
            finish(identifier, with: .failure(failure))
            completionHandler(.cancel)
            dataTask.cancel()
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let identifier = dataTask.taskIdentifier
        let outcome: (failure: StrataError?, report: (@Sendable (DownloadProgress) -> Void)?, DownloadProgress?) =
            transfers.withLock { transfers in
                guard var transfer = transfers[identifier] else { return (nil, nil, nil) }
                transfer.received += Int64(data.count)
                if transfer.received > Int64(transfer.limit) {
                    return (
                        StrataError(
                            .tooLarge,
                            "\(transfer.description): the body exceeds the limit of \(transfer.limit) bytes",
                            httpStatus: transfer.response?.statusCode
                        ), nil, nil
                    )
                }
                switch transfer.sink {
                case .memory:
                    transfer.body.append(data)
                case .file(let handle):
                    do {
                        try handle.write(contentsOf: data)
                    } catch {
                        return (
                            StrataError.io("Writing \(transfer.description) to a file failed", underlying: error), nil,
                            nil
                        )
                    }
                }
                transfers[identifier] = transfer
                let progress = DownloadProgress(bytesReceived: transfer.received, expectedBytes: transfer.expected)
                return (nil, transfer.progress, progress)
            }
        if let failure = outcome.failure {
            finish(identifier, with: .failure(failure))
            dataTask.cancel()
        } else if let report = outcome.report, let progress = outcome.2 {
            report(progress)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let identifier = task.taskIdentifier
        guard let transfer = transfers.withLock({ $0[identifier] }) else { return }
        if let error {
            let urlError = Self.urlError(from: error)
            let reason = urlError.code == .timedOut ? "timed out" : "failed: \(urlError.localizedDescription)"
            finish(
                identifier,
                with: .failure(StrataError(.network, "\(transfer.description) \(reason)", underlying: urlError))
            )
            return
        }
        guard let response = transfer.response else {
            finish(identifier, with: .failure(StrataError(.network, "\(transfer.description) got no HTTP response")))
            return
        }
        let headers = Self.headers(of: response)
        if let expected = transfer.expected, transfer.received < expected, Self.bodyIsCountable(transfer, headers) {
            let message = "\(transfer.description): the body ended after \(transfer.received) of \(expected) bytes"
            finish(
                identifier,
                with: .failure(StrataError(.network, message, underlying: URLError(.networkConnectionLost)))
            )
            return
        }
        finish(
            identifier,
            with: .success(
                HTTPResponse(status: response.statusCode, headers: headers, body: transfer.body, url: response.url)
            )
        )
    }

    // MARK: - Helpers

    /// Whether the received byte count can be compared with `Content-Length`: not for `HEAD`, 204 and
    /// 304, nor for a body the transport decompressed.
    private static func bodyIsCountable(_ transfer: Transfer, _ headers: HTTPHeaders) -> Bool {
        guard transfer.method != .head, let status = transfer.response?.statusCode, status != 204, status != 304
        else { return false }
        let encoding = headers["Content-Encoding"]?.lowercased() ?? "identity"
        return encoding == "identity"
    }

    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers.add(String(describing: value), for: String(describing: name))
        }
        return headers
    }

    static func urlError(from error: any Error) -> URLError {
        if let urlError = error as? URLError { return urlError }
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else { return URLError(.unknown) }
        return URLError(URLError.Code(rawValue: nsError.code) ?? .unknown)
    }
}
