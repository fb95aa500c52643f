#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Calls on an open descriptor that retry on `EINTR` and never read or write past what they were given.
package enum FileDescriptor {
    /// Writes every byte; false with `errno` set on failure.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var written = 0
        while written < bytes.count {
            let result = write(fd, base + written, bytes.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += result
        }
        return true
    }

    /// Reads to the end of the file, at most `limit` bytes.
    ///
    /// - Throws: ``POSIXCallError``; `EFBIG` when the file holds more than `limit` bytes.
    package static func readAll(_ fd: Int32, limit: Int, path: String) throws(POSIXCallError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .last("read", path)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else { throw POSIXCallError(call: "read", path: path, code: EFBIG) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Flushes a file's data (or a folder's entries) to stable storage; on Apple platforms with `F_FULLFSYNC`.
    package static func sync(_ fd: Int32) -> Bool {
        #if canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(fd) == 0
    }
}
