import Foundation
import Strata

extension HTTPClient {
    /// Downloads a response body to a new temporary file as a sequence of events: progress, then the
    /// finished file.
    ///
    /// ```swift
    /// for try await event in client.downloads(request) {
    ///     switch event {
    ///     case .progress(let progress): bar.value = progress.fractionCompleted ?? 0
    ///     case .finished(let file): use(file.fileURL)
    ///     }
    /// }
    /// ```
    ///
    /// The file is the caller's once the `.finished` event is handed to it. Ending the iteration early (or
    /// cancelling the iterating task) cancels the download and deletes the partial file — and the finished one,
    /// when the iteration ended after the last progress event (at fraction 1, say) and before `.finished`: nobody
    /// else knows its name.
    ///
    /// A caller slower than the download misses progress events, never the last one or `.finished`: at most two
    /// events wait for it (a 4 GiB download makes a quarter of a million progress reports, which were all kept).
    ///
    /// - Parameter request: The request.
    public func downloads(_ request: HTTPRequest) -> AsyncThrowingStream<DownloadEvent, any Error> {
        // The newest two: the last progress and `.finished` survive whatever came before them.
        let (events, continuation) = AsyncThrowingStream.makeStream(
            of: DownloadEvent.self,
            bufferingPolicy: .bufferingNewest(2)
        )
        let handOff = DownloadHandOff()
        let task = Task {
            do {
                let file = try await download(request) { continuation.yield(.progress($0)) }
                if handOff.offer(file) { continuation.yield(.finished(file)) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        // Pulled one event at a time, so that an event returned is an event the caller has: the `.finished` it
        // never pulled is still the session's, which deletes its file when the caller lets the sequence go.
        let session = DownloadSession(events: events.makeAsyncIterator(), handOff: handOff, task: task)
        return AsyncThrowingStream { try await session.next() }
    }
}

/// Who holds the file of a finished download of ``HTTPClient/downloads(_:)``: the download until the caller pulls
/// its `.finished` event, the caller after; deleted when the caller lets the sequence go before that.
final class DownloadHandOff: Sendable {
    private struct State {
        var file: DownloadedFile?
        var isAbandoned = false
    }

    private let state = Locked(State())

    /// Offers the finished file; returns whether the caller may still take it (otherwise it is deleted now).
    func offer(_ file: DownloadedFile) -> Bool {
        let isAbandoned = state.withLock { state in
            if !state.isAbandoned { state.file = file }
            return state.isAbandoned
        }
        if isAbandoned { DownloadFile.remove(at: file.fileURL) }
        return !isAbandoned
    }

    /// The caller pulled the `.finished` event: the file is its own.
    func handedOut() {
        state.withLock { $0.file = nil }
    }

    /// The caller let the sequence go: a file offered and not handed out is deleted, and one offered later too.
    func abandon() {
        let file = state.withLock { state in
            state.isAbandoned = true
            defer { state.file = nil }
            return state.file
        }
        if let file { DownloadFile.remove(at: file.fileURL) }
    }
}

/// The events of one ``HTTPClient/downloads(_:)`` as the caller pulls them; when the caller lets them go, the
/// download is cancelled and its file, if not handed out, deleted.
final class DownloadSession: @unchecked Sendable {
    // @unchecked: `events` is used only by `next()`, which the pulled sequence's iterator calls one call at a time;
    // the rest is immutable and Sendable. Iterating that sequence from two tasks at once is a programmer error for an
    // `AsyncThrowingStream` (it would run `next()` twice at once here, and the inner stream then traps): the sound use
    // is the one the type documents.
    private var events: AsyncThrowingStream<DownloadEvent, any Error>.Iterator
    private let handOff: DownloadHandOff
    private let task: Task<Void, Never>

    init(
        events: AsyncThrowingStream<DownloadEvent, any Error>.Iterator,
        handOff: DownloadHandOff,
        task: Task<Void, Never>
    ) {
        self.events = events
        self.handOff = handOff
        self.task = task
    }

    deinit {
        task.cancel()
        handOff.abandon()
    }

    /// The next event; a `.finished` one hands the file over.
    func next() async throws -> DownloadEvent? {
        let event = try await events.next()
        if case .finished = event { handOff.handedOut() }
        return event
    }
}
