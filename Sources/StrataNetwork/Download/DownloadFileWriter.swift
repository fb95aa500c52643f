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
/// A transport counts a chunk under its lock and writes it after letting go: a disk that hangs a write then holds
/// only the thread that writes, never the lock that the transport's deadlines are enforced under, so the download
/// still ends when its deadline passes (before, the deadline's watchdog waited on the lock behind the write, and
/// every request of the transport with it).
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
    }

    /// The file's location, for messages and the test seam.
    package let url: URL
    private let state: Locked<State>

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
        let descriptor = state.withLock { state -> Int32? in
            guard let descriptor = state.descriptor, !state.isWriting, !state.closesAfterWrite else { return nil }
            state.isWriting = true
            return descriptor
        }
        guard let descriptor else {
            throw StrataError.io("The download file \(url.path) is closed")
        }
        Self.heldWrites.withLock { $0.isEmpty ? nil : $0[url.deletingLastPathComponent().path] }?()
        let written = FileDescriptor.writeAll(descriptor, bytes)
        let reason = written ? nil : String(cString: strerror(errno))
        let closes = state.withLock { state -> Bool in
            state.isWriting = false
            guard state.closesAfterWrite else { return false }
            state.descriptor = nil
            return true
        }
        if closes { closeFile(descriptor) }
        if let reason { throw StrataError.io("Writing the download file \(url.path) failed: \(reason)") }
    }

    /// Closes the file now, or, while a write runs, as soon as it returns. Closing twice does nothing.
    package func close() {
        let descriptor = state.withLock { state -> Int32? in
            if state.isWriting {
                state.closesAfterWrite = true
                return nil
            }
            defer { state.descriptor = nil }
            return state.descriptor
        }
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
