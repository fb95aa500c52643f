import Foundation
import Strata
import StrataStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A download's file, written chunk by chunk with no lock held, and closed once no write is using it.
///
/// A transport counts a chunk under its lock and writes it after letting go — directly (`write(_:)`), or
/// queued on the file's own queue (``enqueue(_:then:)``), so that a thread every transfer shares never waits for the
/// disk: a disk that hangs a write then holds only the thread that writes, never the lock that the transport's
/// deadlines are enforced under, so the download still ends when its deadline passes (before, the deadline's
/// watchdog waited on the lock behind the write, and every request of the transport with it).
///
/// The file's other calls run on that queue too: its creation, as the queue's first job, for a writer made by
/// ``DownloadFile/createQueued(at:)``, and its close (``close()``) and deletion (``discard()``) for every writer. So
/// whoever ends a transfer — the transport's shared queue, its deadline watchdog, a cancelling caller — never calls
/// the file system: a network mount that hangs a create or a close (a dirty file flushes on close) holds that queue
/// only, never the other transfers and deadlines of the transport.
///
/// A transfer that ends while its chunk is being written (a deadline, a cancellation) closes the file when that
/// write returns, not under it: the descriptor is never closed while a write holds its number, which another
/// `open` could otherwise be given, and the rest of the chunk written into that other file.
package final class DownloadFileWriter: Sendable {
    /// Why a job of the writer's queue failed (``enqueue(_:then:)``, ``whenWritten(_:)``).
    package enum Failure: Error, Sendable {
        /// The file could not be created: the error names it (``DownloadFile/create(at:)``'s).
        case create(StrataError)
        /// A chunk could not be written.
        case write(StrataError)
    }

    private struct State {
        /// The open file: `nil` before its creation ran (``DownloadFile/createQueued(at:)``), and once closed.
        var descriptor: Int32?
        /// Whether ``close()`` was called: nothing is written after it, and the file is closed once no write holds it.
        var isClosed = false
        /// Whether the file was made: handed over open, or created by the writer's queue (``discard()`` deletes only
        /// a file that was).
        var wasCreated = false
        var isWriting = false
        /// The bytes handed to ``enqueue(_:then:)`` and not yet written.
        var queuedBytes = 0
        /// The failure of the file's creation or of the first queued chunk: the chunks after it are not written.
        var failure: Failure?
    }

    /// The file's location, for messages and the test seam.
    package let url: URL
    private let state: Locked<State>

    /// Where queued chunks are written, one after the other (``enqueue(_:then:)``), and the file created, closed and
    /// deleted.
    private let queue = DispatchQueue(label: "StrataNetwork.DownloadFileWriter")

    /// Signalled when a queued chunk is written and when the file is closed (``waitForBacklog(atMost:every:meanwhile:)``).
    private let backlog = NSCondition()

    /// Takes over `descriptor`, open for writing on the file at `url`.
    init(descriptor: Int32, url: URL) {
        self.url = url
        state = Locked(State(descriptor: descriptor, wasCreated: true))
    }

    /// Creates the file at `url` as the first job of the writer's queue (``DownloadFile/createQueued(at:)``).
    init(creating url: URL) {
        self.url = url
        state = Locked(State())
        queue.async { [self] in create() }
    }

    deinit {
        if let descriptor = state.withLock({ $0.descriptor }) { systemClose(descriptor) }
    }

    /// Creates the file, on the writer's queue: not once the writer is closed. A file made after the writer was
    /// closed is closed and deleted at once: its transfer is over, and its caller's deletion may have come before the
    /// file was there.
    private func create() {
        guard !state.withLock({ $0.isClosed }) else { return }
        let descriptor: Int32
        do throws(StrataError) {
            descriptor = try DownloadFile.openNew(at: url)
        } catch {
            state.withLock { $0.failure = $0.failure ?? .create(error) }
            return
        }
        let isClosed = state.withLock { state in
            if !state.isClosed { (state.descriptor, state.wasCreated) = (descriptor, true) }
            return state.isClosed
        }
        guard isClosed else { return }
        closeFile(descriptor)
        DownloadFile.remove(at: url)
    }

    /// Appends `data` to the file, every byte, with no lock held while the system writes.
    ///
    /// Calls must not overlap (a transport writes one chunk after the other); an overlapping call fails.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when the system refuses the write (a full disk), the file is not open
    ///   (closed first, or not created yet), or another write is running.
    package func write(_ data: Data) throws(StrataError) {
        try data.withUnsafeBytes { bytes in Result { () throws(StrataError) in try write(bytes) } }.get()
    }

    /// Appends `bytes` to the file, as the `Data` form does.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(StrataError) {
        try withWriting("Writing") { FileDescriptor.writeAll($0, bytes) }
    }

    /// Appends every byte of the file open at `source`, read from its start by offset (its position is not used),
    /// with no lock held while the system reads and writes, as a chunk is written.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when a read or a write fails, the file is not open, or another write
    ///   is running.
    package func write(contentsOf source: Int32) throws(StrataError) {
        try withWriting("Copying into") { FileDescriptor.copy(from: source, to: $0) }
    }

    /// Runs `body` on the open descriptor as the one write of the file, with no lock held: marked as writing first
    /// (so that a ``close()`` meanwhile waits for it), and closing the file after it when a close came meanwhile.
    ///
    /// - Parameters:
    ///   - action: What `body` does, for the error (`Writing`).
    ///   - body: The write; false with `errno` set when it failed.
    private func withWriting(_ action: String, _ body: (Int32) -> Bool) throws(StrataError) {
        let descriptor = state.withLock { state -> Int32? in
            guard let descriptor = state.descriptor, !state.isWriting, !state.isClosed else { return nil }
            state.isWriting = true
            return descriptor
        }
        guard let descriptor else {
            throw StrataError.io("The download file \(url.path) is not open")
        }
        Self.hold(.write, at: url)
        let written = body(descriptor)
        let reason = written ? nil : String(cString: strerror(errno))
        let closes = state.withLock { state -> Bool in
            state.isWriting = false
            guard state.isClosed else { return false }
            state.descriptor = nil
            return true
        }
        if closes { closeFile(descriptor) }
        if let reason { throw StrataError.io("\(action) the download file \(url.path) failed: \(reason)") }
    }

    /// Queues `data` to be appended after the chunks queued before it, on the writer's own queue: the caller never
    /// waits for the disk, so a disk that hangs holds that queue's thread only. `written` is called there once the
    /// chunk is on disk, or with the failure of the file's creation or of the write (the first failure fails every
    /// chunk after it, unwritten); a chunk queued after ``close()`` is dropped, and `written` not called.
    ///
    /// - Parameters:
    ///   - data: The chunk.
    ///   - written: Told how the chunk's write ended, with the bytes still queued after it.
    /// - Returns: The bytes queued and not yet written, this chunk included.
    package func enqueue(
        _ data: Data,
        then written: @escaping @Sendable (_ result: Result<Void, Failure>) -> Void
    ) -> Int {
        let queued = state.withLock { state -> Int? in
            guard !state.isClosed else { return nil }
            state.queuedBytes += data.count
            return state.queuedBytes
        }
        guard let queued else { return 0 }
        queue.async { [self] in
            let failure = state.withLock { $0.failure }
            var result = Result<Void, Failure>.success(())
            if let failure {
                result = .failure(failure)
            } else {
                do throws(StrataError) {
                    try write(data)
                } catch {
                    state.withLock { $0.failure = $0.failure ?? .write(error) }
                    result = .failure(.write(error))
                }
            }
            backlog.lock()
            state.withLock { $0.queuedBytes -= data.count }
            backlog.broadcast()
            backlog.unlock()
            written(result)
        }
        return queued
    }

    /// Waits until at most `bytes` queued bytes are left to write, or the file is closed (the transfer ended), on the
    /// caller's thread, running `meanwhile` at least every `interval` while it waits (outside the writer's lock).
    ///
    /// - Parameters:
    ///   - bytes: The backlog to wait for.
    ///   - interval: The longest wait between two runs of `meanwhile`.
    ///   - meanwhile: What the waiting thread does while it waits (the delegate queue's other work that cannot wait).
    package func waitForBacklog(atMost bytes: Int, every interval: Duration, meanwhile: () -> Void) {
        while true {
            backlog.lock()
            let waits = state.withLock { $0.queuedBytes > bytes && !$0.isClosed }
            if waits { _ = backlog.wait(until: Date(timeIntervalSinceNow: interval.timeInterval)) }
            backlog.unlock()
            guard waits else { return }
            meanwhile()
        }
    }

    /// Calls `body` on the writer's queue once the file's creation and every chunk queued so far are done, with the
    /// first failure of any.
    ///
    /// - Parameter body: Told the first failure of the file's creation or of a queued chunk's write, or `nil`.
    package func whenWritten(_ body: @escaping @Sendable (Failure?) -> Void) {
        queue.async { [self] in body(state.withLock { $0.failure }) }
    }

    /// Closes the file on the writer's queue, once no write holds it: the caller never waits for the file system (a
    /// close on a network mount that hangs, flushing a dirty file, holds that queue only). Nothing is written after
    /// it, and a file not created yet is not created. Closing twice does nothing.
    package func close() {
        backlog.lock()
        let closes = state.withLock { state in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        // A delegate waiting for the backlog goes on: the transfer has ended.
        backlog.broadcast()
        backlog.unlock()
        guard closes else { return }
        queue.async { [self] in
            let descriptor = state.withLock { state -> Int32? in
                // A write that holds the file closes it when it returns.
                guard !state.isWriting else { return nil }
                defer { state.descriptor = nil }
                return state.descriptor
            }
            if let descriptor { closeFile(descriptor) }
        }
    }

    /// Closes the file as ``close()`` does, then deletes it, on the writer's queue: for a download whose transfer
    /// ended before the file was taken in.
    package func discard() {
        close()
        queue.async { [self] in
            if state.withLock({ $0.wasCreated }) { DownloadFile.remove(at: url) }
        }
    }

    /// Whether the file is open: false before the writer's queue created it, and once ``close()`` has run and no write
    /// holds it.
    package var isOpen: Bool { state.withLock { $0.descriptor != nil } }

    /// Closes `descriptor`, the file's, on the thread that made its last call (the writer's queue, or a write's).
    private func closeFile(_ descriptor: Int32) {
        Self.hold(.close, at: url)
        systemClose(descriptor)
    }

    /// A call on a download's file, for the test seam (``heldCalls``).
    package enum FileCall: Sendable, Equatable {
        case open, write, close
    }

    /// Tests only: what runs before every open, write and close of a download's file in a folder, by the folder's
    /// path, on the calling thread; a test holds a call there to play a disk that hangs.
    package static let heldCalls = Locked<[String: @Sendable (FileCall) -> Void]>([:])

    /// Runs what a test set to run before `call` on the file at `url` (``heldCalls``), if anything.
    static func hold(_ call: FileCall, at url: URL) {
        heldCalls.withLock { $0.isEmpty ? nil : $0[url.deletingLastPathComponent().path] }?(call)
    }
}

/// Closes a descriptor (a free function: inside the writer, `close` names its own method).
private func systemClose(_ descriptor: Int32) {
    _ = close(descriptor)
}
