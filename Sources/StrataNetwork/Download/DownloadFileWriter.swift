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

/// A download's open file, written chunk by chunk with no lock held, and closed once no write is using it.
///
/// A transport counts a chunk under its lock and writes it after letting go — directly (`write(_:)`), or
/// queued on the file's own queue (``enqueue(_:then:)``), so that a thread every transfer shares never waits for the
/// disk: a disk that hangs a write then holds only the thread that writes, never the lock that the transport's
/// deadlines are enforced under, so the download still ends when its deadline passes (before, the deadline's
/// watchdog waited on the lock behind the write, and every request of the transport with it).
///
/// A transfer that ends while its chunk is being written (a deadline, a cancellation) closes the file when that
/// write returns, not under it: the descriptor is never closed while a write holds its number, which another
/// `open` could otherwise be given, and the rest of the chunk written into that other file.
package final class DownloadFileWriter: Sendable {
    private struct State {
        /// `nil` once closed.
        var descriptor: Int32?
        var isWriting = false
        var closesAfterWrite = false
        /// The bytes handed to ``enqueue(_:then:)`` and not yet written.
        var queuedBytes = 0
        /// The first queued chunk's failure: the chunks after it are not written.
        var failure: StrataError?
    }

    /// The file's location, for messages and the test seam.
    package let url: URL
    private let state: Locked<State>

    /// Where queued chunks are written, one after the other (``enqueue(_:then:)``).
    private let queue = DispatchQueue(label: "StrataNetwork.DownloadFileWriter")

    /// Signalled when a queued chunk is written and when the file is closed (``waitForBacklog(atMost:every:meanwhile:)``).
    private let backlog = NSCondition()

    /// Takes over `descriptor`, open for writing on the file at `url`.
    init(descriptor: Int32, url: URL) {
        self.url = url
        state = Locked(State(descriptor: descriptor))
    }

    deinit {
        if let descriptor = state.withLock({ $0.descriptor }) { closeFile(descriptor) }
    }

    /// Appends `data` to the file, every byte, with no lock held while the system writes.
    ///
    /// Calls must not overlap (a transport writes one chunk after the other); an overlapping call fails.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when the system refuses the write (a full disk), the file was
    ///   closed first, or another write is running.
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
    /// - Throws: ``Strata/StrataError/Code/io`` when a read or a write fails, the file was closed first, or another
    ///   write is running.
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
            guard let descriptor = state.descriptor, !state.isWriting, !state.closesAfterWrite else { return nil }
            state.isWriting = true
            return descriptor
        }
        guard let descriptor else {
            throw StrataError.io("The download file \(url.path) is closed")
        }
        Self.heldWrites.withLock { $0.isEmpty ? nil : $0[url.deletingLastPathComponent().path] }?()
        let written = body(descriptor)
        let reason = written ? nil : String(cString: strerror(errno))
        let closes = state.withLock { state -> Bool in
            state.isWriting = false
            guard state.closesAfterWrite else { return false }
            state.descriptor = nil
            return true
        }
        if closes { closeFile(descriptor) }
        if let reason { throw StrataError.io("\(action) the download file \(url.path) failed: \(reason)") }
    }

    /// Queues `data` to be appended after the chunks queued before it, on the writer's own queue: the caller never
    /// waits for the disk, so a disk that hangs holds that queue's thread only. `written` is called there once the
    /// chunk is on disk, or with the failure of the write (the first failure fails every chunk after it, unwritten);
    /// a chunk queued after ``close()`` is dropped, and `written` not called.
    ///
    /// - Parameters:
    ///   - data: The chunk.
    ///   - written: Told how the chunk's write ended, with the bytes still queued after it.
    /// - Returns: The bytes queued and not yet written, this chunk included.
    package func enqueue(
        _ data: Data,
        then written: @escaping @Sendable (_ result: Result<Void, StrataError>) -> Void
    ) -> Int {
        let queued = state.withLock { state -> Int? in
            guard state.descriptor != nil, !state.closesAfterWrite else { return nil }
            state.queuedBytes += data.count
            return state.queuedBytes
        }
        guard let queued else { return 0 }
        queue.async { [self] in
            let failure = state.withLock { $0.failure }
            var result = Result<Void, StrataError>.success(())
            if let failure {
                result = .failure(failure)
            } else {
                do throws(StrataError) {
                    try write(data)
                } catch {
                    state.withLock { $0.failure = $0.failure ?? error }
                    result = .failure(error)
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
            let waits = state.withLock { $0.queuedBytes > bytes && $0.descriptor != nil && !$0.closesAfterWrite }
            if waits { _ = backlog.wait(until: Date(timeIntervalSinceNow: interval.timeInterval)) }
            backlog.unlock()
            guard waits else { return }
            meanwhile()
        }
    }

    /// Calls `body` on the writer's queue once every chunk queued so far is written, with the first failure of any.
    ///
    /// - Parameter body: Told the first failure of a queued chunk's write, or `nil`.
    package func whenWritten(_ body: @escaping @Sendable (StrataError?) -> Void) {
        queue.async { [self] in body(state.withLock { $0.failure }) }
    }

    /// Closes the file now, or, while a write runs, as soon as it returns. Closing twice does nothing.
    package func close() {
        backlog.lock()
        let descriptor = state.withLock { state -> Int32? in
            if state.isWriting {
                state.closesAfterWrite = true
                return nil
            }
            defer { state.descriptor = nil }
            return state.descriptor
        }
        // A delegate waiting for the backlog goes on: the transfer has ended.
        backlog.broadcast()
        backlog.unlock()
        if let descriptor { closeFile(descriptor) }
    }

    /// Whether the file is still open: false once ``close()`` has run and no write holds it.
    package var isOpen: Bool { state.withLock { $0.descriptor != nil } }

    /// Tests only: what runs before every chunk written to a file in a folder, by the folder's path, on the writing
    /// thread; a test holds a write there to play a disk that hangs.
    package static let heldWrites = Locked<[String: @Sendable () -> Void]>([:])
}

/// Closes a descriptor (a free function: inside the writer, `close` names its own method).
private func closeFile(_ descriptor: Int32) {
    _ = close(descriptor)
}
