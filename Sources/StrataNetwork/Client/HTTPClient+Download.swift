import Foundation
import Strata
internal import StrataSupport

extension HTTPClient {
    /// Downloads a response body to a new temporary file, reporting progress.
    ///
    /// ```swift
    /// let file = try await client.download(request) { progress in
    ///     print(progress.fractionCompleted ?? Double(progress.bytesReceived))
    /// }
    /// try FileManager.default.moveItem(at: file.fileURL, to: cachesURL.appending(path: "report.pdf"))
    /// ```
    ///
    /// The file is created in ``Configuration/downloadDirectory`` when a 2xx response arrives, new (nothing that
    /// already holds its name is written through) and readable by its owner only (mode 0600); a request whose
    /// method or headers could change its framing fails with ``Strata/StrataError/Code/invalidArgument`` before
    /// any file or request. When the call fails — a status error (a 304 included: use
    /// ``download(_:ifModifiedSince:progress:)`` to revalidate),
    /// ``Strata/StrataError/Code/tooLarge``, a network error, or cancellation of the calling task — the
    /// partial file is deleted before the error is thrown (with ``URLSessionTransport``, whose file calls run on a
    /// queue of the file's own, a file whose creation hung past the call's end is deleted once the creation returns).
    /// A cancellation seen once the answer is all in deletes the file too; its error says
    /// ``Strata/StrataError/mayHaveTakenEffect`` unless the answer's status refused the request (a `4xx`).
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - progress: Called as bytes arrive, from any thread (the transport's own: it must return quickly and never
    ///     wait, on the main thread or on this client, as a URLSession transport's other requests wait behind it),
    ///     with growing values; the last call of a successful download reports completion (fraction 1).
    /// - Returns: The file, status and headers.
    public func download(
        _ request: HTTPRequest,
        progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }
    ) async throws -> DownloadedFile {
        switch try await download(prepared(request), acceptingNotModified: false, progress: progress) {
        case .modified(let file): return file
        case .notModified(let response):
            // Not reached: without `acceptingNotModified` a 304 is thrown as a status error.
            throw StrataError(.unexpectedResponse, "HTTP \(response.status) for \(Self.describe(request))")
        }
    }

    /// Downloads a response body to a new temporary file unless the stored copy is still current: sends the
    /// validators (`If-None-Match`, `If-Modified-Since`) and returns the file, or *not modified* as a value.
    ///
    /// ```swift
    /// switch try await client.download(request, ifModifiedSince: ConditionalHeaders(eTag: stored.eTag)) {
    /// case .modified(let file): try images.move(fileAt: file.fileURL, forKey: request.cacheKey)
    /// case .notModified(let response): renew(request.cacheKey, with: response.headers)
    /// }
    /// ```
    ///
    /// For a 304 nothing touches the disk: no file is created, read or deleted (with ``URLSessionTransport``,
    /// or any transport that creates the destination only for a 2xx, see ``HTTPTransport``). A 304 whose `ETag`
    /// names another version than the one asked about is not about the stored copy (RFC 9111, section 4.3.4): the
    /// request is sent once more without conditions, within what remains of the first one's total deadline, and its
    /// answer returned (a 304 to that one is ``Strata/StrataError/Code/unexpectedResponse``).
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - conditions: The stored copy's validators; as for ``send(_:ifModifiedSince:)``, sent only with a GET or a
    ///     HEAD, and a 304 to conditions none of which could be sent is ``Strata/StrataError/Code/unexpectedResponse``.
    ///   - progress: Called as bytes arrive, as for ``download(_:progress:)``.
    /// - Returns: ``ConditionalResponse/modified(_:)`` with the file, or ``ConditionalResponse/notModified(_:)``
    ///   with the 304 and every header it had.
    /// - Throws: As ``download(_:progress:)`` for every other status and failure.
    public func download(
        _ request: HTTPRequest,
        ifModifiedSince conditions: ConditionalHeaders,
        progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }
    ) async throws -> ConditionalResponse<DownloadedFile> {
        let request = try prepared(request.revalidating(conditions))
        let deadlines = callDeadlines(of: request)
        let answer = try await download(
            request,
            acceptingNotModified: Self.acceptsNotModified(request, given: conditions),
            progress: progress
        )
        guard case .notModified(let response) = answer, Self.isAboutAnotherVersion(response, of: request) else {
            return answer
        }
        // Asked without conditions, a 304 cannot be about any copy: it is checked as any status is.
        return try await download(
            try request.askedAgain(within: deadlines, now: deadlineNow),
            acceptingNotModified: false,
            progress: progress
        )
    }

    /// A new name for a download's file in ``Configuration/downloadDirectory``: the one place downloads are named.
    package func newDownloadFileURL() -> URL {
        configuration.downloadDirectory.appendingPathComponent("strata-\(UUID().uuidString).download")
    }

    /// Downloads a prepared request; a 304 is a value when `acceptingNotModified`, a status error otherwise.
    private func download(
        _ request: HTTPRequest,
        acceptingNotModified: Bool,
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws -> ConditionalResponse<DownloadedFile> {
        let fileURL = newDownloadFileURL()
        // How far a download has come: its bytes, and completion beyond any count (so a download of unknown
        // length still closes with fraction 1, once).
        let reporter = ProgressDeduplicator<DownloadProgress>(
            measure: { $0.fractionCompleted == 1 ? .infinity : Double($0.bytesReceived) },
            forward: progress
        )
        do {
            let response = try await transport.download(
                request,
                to: fileURL,
                maximumBodySize: configuration.maximumResponseSize,
                progress: reporter.report
            )
            if Task.isCancelled {
                // The answer is all in: the request reached the server, which may have carried it out (its status
                // says, as for a transfer cut after its head).
                let cancelled = StrataError(.cancelled, "\(Self.describe(request)) was cancelled")
                throw HTTPExchange.failure(cancelled, afterHead: response.status)
            }
            if acceptingNotModified, response.status == 304 { return .notModified(response) }
            if !response.isSuccess {
                // The transport keeps an error's body in memory; a transport that wrote it to the file anyway
                // is read from there.
                var answer = response
                if answer.body.isEmpty { answer.body = Self.prefix(of: fileURL) }
                if let error = Self.error(for: answer, to: request, now: configuration.clock.now()) { throw error }
            }
            let size = Self.size(of: fileURL)
            // The closing report, unless the transport's last one said the download was complete.
            reporter.report(DownloadProgress(bytesReceived: size, expectedBytes: size))
            return .modified(
                DownloadedFile(fileURL: fileURL, status: response.status, headers: response.headers, byteCount: size)
            )
        } catch {
            DownloadFile.remove(at: fileURL)
            if error is CancellationError { throw StrataError(.cancelled, "\(Self.describe(request)) was cancelled") }
            throw error
        }
    }

    static func prefix(of fileURL: URL) -> Data {
        guard let handle = try? FileHandle(forReadingFrom: fileURL) else { return Data() }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: HTTPFailure.bodyPrefixLimit)) ?? Data()
    }

    static func size(of fileURL: URL) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: fileURL.path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
