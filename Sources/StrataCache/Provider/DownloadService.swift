import Foundation
import Strata
import StrataNetwork
import StrataStorage
internal import StrataSupport

/// Downloads a file through a ``CacheProvider``: the Oracle Content SDK's download services, with the
/// same three invocation forms.
///
/// ```swift
/// let service = DownloadService(url: assetURL, cacheProvider: provider, cacheKey: "123")
/// let file = try await service.downloadAsync(progress: nil).result
/// ```
///
/// The result's ``DownloadResult/origin`` says which way it ended (`.cache`, `.revalidated` or `.network`). The flow:
/// 1. With ``CachePolicy/bypassServerCallOnFoundItem``, ``CacheProvider/find(key:)`` is asked first;
///    a file ends the download with no request (`.cache`).
/// 2. Otherwise the request is sent with ``CacheProvider/headerValues(for:)`` set on it, each replacing a
///    header of the same name (case-insensitive). A name that is not a token or a value with a control
///    character (a CR/LF that would add a line) fails the download with
///    ``Strata/StrataError/Code/invalidArgument`` before anything is sent.
/// 3. `304 Not Modified` — a value, not an error, for which no file is created — renews the item
///    (``CacheProvider/renewItem(key:notModified:sentWith:)``) and answers from ``CacheProvider/cachedItem(key:)``
///    (`.revalidated`). When ``CacheProvider/headerValues(for:)`` no longer returns the headers
///    sent, another download stored a newer version meanwhile: the 304 is about the older one, so the item is not
///    renewed, and the cache answers with what it holds. A 304 that finds the item gone (evicted or removed since
///    the request was sent: ``CacheProvider/cachedItem(key:)`` throws ``Strata/StrataError/Code/notFound``) is
///    about no copy the cache holds: the request is sent once more without the provider's headers, within what the
///    first one left of the total deadline (the download as a whole keeps to one), and its answer stored
///    (`.network`). A 304 whose fields forbid keeping the item (its
///    `Cache-Control` says `no-store`: they replace the stored ones, RFC 9111, section 4.3.4) renews nothing: a copy
///    of the cached file, made in the client's download folder, is handed to ``CacheProvider/store(objectAt:key:headers:)``
///    as a download that must not be stored, and what it returns (``FileCacheProvider``: that copy, the caller's,
///    its entry removed) answers;
///    a 2xx response is downloaded to a temporary file and handed to
///    ``CacheProvider/store(objectAt:key:headers:)`` with its headers (`.network`). A provider
///    may hand the download itself back (``FileCacheProvider`` does for a response that must not be stored), by any
///    path that leads to it: that file is then the caller's to remove. The download is deleted only when it is still
///    there and is another file (device and inode) than the one returned.
/// 4. Any error — from the network, a status, or the provider — fails the download with that error.
///
/// A part of the file is never taken for the file. A `206 Partial Content` (or any response with a `Content-Range`)
/// is not stored: the download's own file is handed back, the caller's to remove. A request that carries a `Range`
/// header neither asks ``CacheProvider/find(key:)`` nor sends the provider's headers, and a `304` to it (which only
/// its own conditions can bring) fails with ``Strata/StrataError/Code/unexpectedResponse``: the cache holds no part
/// to answer with. A request by another method than `GET` (a `POST` that exports a file, a `HEAD`) is not a request
/// for the stored file (RFC 9111, section 4), so it goes the same way: sent as it is, its answer handed back and
/// never stored, the provider's copy left as it was.
///
/// Progress runs from 0 to 1 while bytes arrive (when the server sends a `Content-Length`) and is always
/// reported as 1 once a download succeeds, however it was answered.
public struct DownloadService: Sendable {
    /// The request sent when the cache does not answer alone.
    public var request: HTTPRequest

    /// The cache consulted and filled.
    public var cacheProvider: any CacheProvider

    /// The key under which the provider caches the file.
    public var cacheKey: String

    /// The client that sends the request.
    public var client: HTTPClient

    /// Creates a service for a request.
    ///
    /// - Parameters:
    ///   - request: The request (usually a GET).
    ///   - cacheProvider: The cache to consult and fill.
    ///   - cacheKey: The key of the file in the cache.
    ///   - client: The HTTP client.
    public init(
        request: HTTPRequest,
        cacheProvider: any CacheProvider,
        cacheKey: String,
        client: HTTPClient = HTTPClient()
    ) {
        self.request = request
        self.cacheProvider = cacheProvider
        self.cacheKey = cacheKey
        self.client = client
    }

    /// Creates a service that GETs a URL.
    ///
    /// - Parameters:
    ///   - url: The file's URL.
    ///   - cacheProvider: The cache to consult and fill.
    ///   - cacheKey: The key of the file in the cache; when `nil`, the URL without its fragment
    ///     (`HTTPRequest.cacheKey`): `a.pdf#page=2` is the file `a.pdf`, as every cache of Strata keys it.
    ///   - client: The HTTP client.
    public init(url: URL, cacheProvider: any CacheProvider, cacheKey: String? = nil, client: HTTPClient = HTTPClient())
    {
        let request = HTTPRequest(.get, url: url)
        self.init(
            request: request,
            cacheProvider: cacheProvider,
            cacheKey: cacheKey ?? request.cacheKey,
            client: client
        )
    }

    /// Downloads the file, or takes it from the cache.
    ///
    /// - Parameter progress: Receives the share done, from 0 to 1, from any thread.
    /// - Returns: The file the provider returned, the response headers and the origin.
    /// - Throws: The error of the network, of the HTTP status (a ``Strata/StrataError``) or of the provider;
    ///   ``Strata/StrataError/Code/unexpectedResponse`` for a `304` to a request that carried none of the provider's
    ///   headers (validators of the request's own included): it is about no version the cache holds;
    ///   ``Strata/StrataError/Code/invalidArgument`` for an empty ``cacheKey``, before anything is sent.
    public func downloadAsync(progress: (@Sendable (Double) -> Void)? = nil) async throws -> DownloadResult<URL> {
        // Refused before a byte is downloaded: no provider keeps a file under no key.
        guard !cacheKey.isEmpty else {
            throw StrataError(.invalidArgument, "The download's cacheKey is empty: give each file a key of its own")
        }
        let provider = cacheProvider
        let reporter = ProgressDeduplicator(progress)
        // A part of the file is not the file, and a request by another method than GET is not a request for it (RFC
        // 9111, section 4: a stored response answers only the method it was stored for; a POST's answer is not the
        // resource, and a POST sent with a stored `If-None-Match` is refused by a server that honours it): such a
        // request neither reads, revalidates nor stores the cache's copy.
        let bypassesCache = request.headers["Range"] != nil || request.method != .get
        if !bypassesCache, provider.cachePolicy == .bypassServerCallOnFoundItem, mayAnswerWithoutAsking(provider),
            let found = provider.find(key: cacheKey)
        {
            reporter.report(1)
            return DownloadResult(result: found, headers: [:], origin: .cache)
        }
        var request = self.request
        // The call's one total deadline (the client's default when the request has none): a request asked again has
        // what the first one left of it.
        let deadlines = client.callDeadlines(of: client.asSent(request))
        let sent = bypassesCache ? [:] : provider.headerValues(for: cacheKey)
        for (name, value) in sent { request.headers[name] = value }
        let file: DownloadedFile
        switch try await send(request, reporter) {
        case .modified(let downloaded):
            file = downloaded
        case .notModified(let response):
            if let answer = try await answer(response, to: request, sent: sent, bypassesCache: bypassesCache) {
                reporter.report(1)
                return answer
            }
            // The provider's copy went between the request and its answer (evicted, expired, removed): the 304 is
            // about no copy it holds, so the file is asked for once more without the provider's headers, as
            // `HTTPClient` asks again for a 304 about another version, and within what the first request left of
            // the total deadline.
            switch try await send(try self.request.sentAgain(within: deadlines, now: client.deadlineNow), reporter) {
            case .modified(let downloaded):
                file = downloaded
            case .notModified(let response):
                throw error(notModified: response, to: self.request)
            }
        }
        if bypassesCache || file.status == 206 || file.headers["Content-Range"] != nil {
            // A part of the file, or the answer to another method, never stored as the file: the download is the
            // caller's, as downloaded.
            reporter.report(1)
            return DownloadResult(result: file.fileURL, responseHeaders: file.headers, origin: .network)
        }
        let freshness = freshness(of: HTTPResponse(status: file.status, headers: file.headers), to: request)
        let stored = try hand(file.fileURL, headers: file.headers, storable: freshness.isStorable)
        reporter.report(1)
        return DownloadResult(result: stored, responseHeaders: file.headers, origin: .network)
    }

    /// Whether the provider's copy may answer without a request, under ``CachePolicy/bypassServerCallOnFoundItem``: not
    /// when the request asks for a revalidated answer (`Cache-Control: no-cache` or `max-age=0`), nor when a
    /// ``FileCacheProvider``'s copy must be revalidated before each reuse (its response said `no-cache`,
    /// `must-revalidate`, or varied by request fields: RFC 9111, sections 4.1, 5.2.2.2 and 5.2.2.4).
    private func mayAnswerWithoutAsking(_ provider: any CacheProvider) -> Bool {
        let control = client.asSent(request).headers.cacheControl
        if control.noCache || control.maxAge == .zero { return false }
        return (provider as? FileCacheProvider)?.mustRevalidate(key: cacheKey, for: client.asSent(request)) != true
    }

    /// Sends `request`, reporting the download's progress.
    ///
    /// The provider's headers are set as they are (they need not be validators), so no conditions are added; a 304
    /// is still a value, and writes nothing to disk.
    private func send(_ request: HTTPRequest, _ reporter: ProgressDeduplicator<Double>) async throws
        -> ConditionalResponse<DownloadedFile>
    {
        try await client.download(
            request,
            ifModifiedSince: ConditionalHeaders(),
            progress: { step in
                if let fraction = step.fractionCompleted { reporter.report(fraction) }
            }
        )
    }

    /// The answer to a `304` to `request`, sent with the provider's headers `sent`: the provider's copy, renewed (or,
    /// when the 304's fields forbid keeping it, a copy of the caller's own, the provider's dropped); `nil` when the
    /// provider no longer holds it (``CacheProvider/cachedItem(key:)`` throws ``Strata/StrataError/Code/notFound``).
    ///
    /// - Throws: ``Strata/StrataError/Code/unexpectedResponse`` for a 304 to a request for a range, or to one that
    ///   carried none of the provider's headers; the provider's errors.
    private func answer(
        _ response: HTTPResponse,
        to request: HTTPRequest,
        sent: [String: String],
        bypassesCache: Bool
    ) async throws -> DownloadResult<URL>? {
        guard !bypassesCache else {
            throw StrataError(
                .unexpectedResponse,
                "The server answered 304 Not Modified to a \(request.method.rawValue) request"
                    + (request.headers["Range"] != nil ? " for a range" : "")
                    + " of \(StrataError.quoted(key: cacheKey.describedForErrorsAsURL)): the cache holds nothing to answer it with"
            )
        }
        // The request carried nothing of the cache's copy: the 304 is about no version the cache holds, and renewing
        // or handing out its file would pin whatever it holds.
        guard !sent.isEmpty else { throw error(notModified: response, to: request) }
        // The 304's fields replace the stored ones (RFC 9111, section 4.3.4): its `no-store` forbids keeping the copy,
        // as a full answer's would. Either way, the provider renews or removes only the version the request was sent
        // about: another download may have stored a newer one meanwhile.
        let keepsCopy = freshness(of: response, to: request)
            .keepsRenewedResponse(sendsCacheControl: response.headers["Cache-Control"] != nil)
        if keepsCopy { try await cacheProvider.renewItem(key: cacheKey, notModified: response, sentWith: sent) }
        let cached: URL
        do {
            cached = try cacheProvider.cachedItem(key: cacheKey)
        } catch let error as StrataError where error.code == .notFound {
            return nil
        }
        let result = keepsCopy ? cached : try await dropped(cached, notModified: response, sentWith: sent)
        return DownloadResult(result: result, responseHeaders: response.headers, origin: .revalidated)
    }

    /// A copy of the cached file `cached`, the caller's, once the provider dropped the version the request was sent
    /// about (with `sent`) after a 304 that forbids keeping it.
    ///
    /// A provider that still returns `sent` after ``CacheProvider/renewItem(key:notModified:sentWith:)`` kept the
    /// version: the copy is handed to it as a download that must not be stored, so it drops its own and returns the
    /// copy.
    private func dropped(
        _ cached: URL,
        notModified response: HTTPResponse,
        sentWith sent: [String: String]
    ) async throws -> URL {
        let copy = try copy(of: cached)
        do {
            try await cacheProvider.renewItem(key: cacheKey, notModified: response, sentWith: sent)
            guard cacheProvider.headerValues(for: cacheKey) == sent else { return copy }
        } catch {
            DownloadFile.remove(at: copy)
            throw error
        }
        return try hand(copy, headers: response.headers, storable: false)
    }

    /// The error of a `304` to `request`, which carried none of the provider's headers: it is about no version the
    /// cache holds.
    private func error(notModified response: HTTPResponse, to request: HTTPRequest) -> StrataError {
        let described = "\(request.method) \((try? request.url())?.describedForErrors ?? request.path)"
        return HTTPClient.error(for: response, request: described, now: client.configuration.clock.now())
            ?? StrataError(.unexpectedResponse, "\(described) answered 304 Not Modified")
    }

    /// How a cache judges `response` to `request`, received now: by the request as the client sends it
    /// (`HTTPClient.asSent(_:)`: a `Cache-Control` of the client's configuration counts).
    private func freshness(of response: HTTPResponse, to request: HTTPRequest) -> HTTPFreshness {
        let now = client.configuration.clock.now()
        return HTTPFreshness(response: response, requestTime: now, responseTime: now, request: client.asSent(request))
    }

    /// Hands the download `file` to the provider with `headers`, and deletes it unless it is the file the provider
    /// returned (or gone); deletes it when the provider fails.
    ///
    /// - Parameter storable: Whether the file may be stored. The status (a 202 without freshness), the request
    ///   (`no-store`) or a 304's fields may forbid it, which the provider cannot tell from the headers it is given:
    ///   they say `no-store` then, and it stores nothing (dropping its older copy).
    private func hand(_ file: URL, headers: HTTPHeaders, storable: Bool) throws -> URL {
        var headers = headers
        if !storable { headers["Cache-Control"] = "no-store" }
        let stored: URL
        do {
            if let provider = cacheProvider as? FileCacheProvider {
                // The request as sent (without the provider's headers): a variant answers the requests that send the
                // values it did in the fields it varies by.
                stored = try provider.store(
                    objectAt: file,
                    key: cacheKey,
                    headers: headers.dictionary,
                    answering: client.asSent(request)
                )
            } else {
                stored = try cacheProvider.store(objectAt: file, key: cacheKey, headers: headers.dictionary)
            }
        } catch {
            DownloadFile.remove(at: file)
            throw error
        }
        Self.removeDownload(file, unlessItIs: stored)
        return stored
    }

    /// A copy of the cached file `cached`, made as a download is (a new file in the client's download folder, created
    /// exclusively and readable by its owner only): the caller's, whatever the provider does with its own.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when the copy cannot be made.
    private func copy(of cached: URL) throws -> URL {
        let copy = client.newDownloadFileURL()
        do {
            let writer = try DownloadFile.create(at: copy)
            defer { writer.close() }
            do {
                try Self.append(contentsOf: cached, to: writer)
            } catch {
                DownloadFile.remove(at: copy)
                throw error
            }
        } catch {
            throw StrataError(
                .io,
                "Copying the cached file of \(StrataError.quoted(key: cacheKey.describedForErrorsAsURL))",
                underlying: error
            )
        }
        return copy
    }

    /// Appends the bytes of the regular file at `file` to `writer`: the file itself opened without following a link,
    /// and without waiting (a pipe planted there cannot hang the open; the type check refuses it).
    private static func append(contentsOf file: URL, to writer: DownloadFileWriter) throws {
        let path = file.path
        let source = FileDescriptor.retryingInterrupts { open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard source >= 0 else { throw POSIXCallError.last("open", path).strataError("Opening the cached file") }
        defer { _ = close(source) }
        guard FileDescriptor.regularFileSize(source) >= 0 else {
            throw StrataError(.io, "\(path) is not a regular file (a folder or a device is there)")
        }
        try writer.write(contentsOf: source)
    }

    /// Deletes the temporary download `file` once the provider has stored it — a copy — unless it is gone (moved) or
    /// is the file the provider returned: `stored`, links along it followed, leads to the same device and inode, by
    /// whatever path (`/var` and `/private/var` on macOS).
    private static func removeDownload(_ file: URL, unlessItIs stored: URL) {
        guard let download = FolderIdentity(itemAt: file.path) else { return }
        var status = stat()
        if FileDescriptor.retryingInterrupts({ stat(stored.path, &status) }) == 0, FolderIdentity(status) == download {
            return
        }
        DownloadFile.remove(at: file)
    }

    /// Downloads the file, or takes it from the cache, and calls `completion` with the outcome.
    ///
    /// - Parameters:
    ///   - progress: Receives the share done, from 0 to 1, from any thread.
    ///   - completion: Receives the result or the error once, from any thread.
    public func download(
        progress: (@Sendable (Double) -> Void)?,
        completion: @escaping @Sendable (Result<DownloadResult<URL>, any Error>) -> Void
    ) {
        let service = self
        Task {
            do {
                completion(.success(try await service.downloadAsync(progress: progress)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Starts the download and returns a future of its result: the form that returns a Combine `Future` in
    /// the Oracle Content SDK.
    ///
    /// - Parameter progress: Receives the share done, from 0 to 1, from any thread.
    /// - Returns: A future that holds the result once the download finishes.
    public func download(progress: (@Sendable (Double) -> Void)?) -> DownloadFuture<DownloadResult<URL>> {
        let service = self
        return DownloadFuture { try await service.downloadAsync(progress: progress) }
    }
}
