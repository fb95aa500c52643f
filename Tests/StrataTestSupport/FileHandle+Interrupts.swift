import Foundation

#if canImport(Glibc)
    import Glibc
    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    import Darwin
    private let systemRead = Darwin.read
#endif

extension FileHandle {
    /// The bytes of the next read (at most 64 KiB), empty at the end of the file or on a failure; a read that a
    /// signal interrupts (`EINTR`) is made again.
    ///
    /// What `availableData` does, without its trap: Foundation's reads end the process on `EINTR`, which a test
    /// process receives whenever one of its child processes stops (`SIGCHLD`) while it reads.
    public func nextChunk() -> Data {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer[..<count]) }
            if errno != EINTR { return Data() }
        }
    }

    /// Every byte up to the end of the file, read with ``nextChunk()``: `readDataToEndOfFile()` without its trap on
    /// `EINTR`.
    public func readToEndAcrossInterrupts() -> Data {
        var data = Data()
        while true {
            let chunk = nextChunk()
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }
}
