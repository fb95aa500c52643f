#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Calls on an open descriptor that retry on `EINTR` and never read or write past what they were given: the
/// positional reads, writes, sizes and flushes every store makes, where Foundation adds metadata calls and copies.
/// Calls on a name go through ``StoreFolder``.
package enum FileDescriptor {
    /// The process's soft limit on open descriptors (`RLIMIT_NOFILE`); `nil` when it cannot be read.
    package static var openLimit: UInt64? {
        var limit = rlimit()
        guard getrlimit(openLimitResource, &limit) == 0 else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// Lowers the process's soft limit on open descriptors to `count` (never raises it); false when it cannot.
    package static func lowerOpenLimit(to count: UInt64) -> Bool {
        var limit = rlimit()
        guard getrlimit(openLimitResource, &limit) == 0 else { return false }
        limit.rlim_cur = min(limit.rlim_cur, rlim_t(count))
        return setrlimit(openLimitResource, &limit) == 0
    }

    #if canImport(Glibc)
        private static let openLimitResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let openLimitResource = RLIMIT_NOFILE
    #endif

    /// Runs a system call until it is not interrupted: its result, with `errno` set when it is negative.
    @inline(__always)
    package static func retryingInterrupts<Result: SignedInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    /// Writes every byte; false with `errno` set on failure.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var written = 0
        while written < bytes.count {
            let result = retryingInterrupts { write(fd, base + written, bytes.count - written) }
            if result < 0 { return false }
            written += result
        }
        return true
    }

    /// Writes every byte of `first`, then of `second` (an entry's payload and its trailer): one `writev` when the
    /// system takes both whole, as it does for a regular file; false with `errno` set on failure.
    package static func writeAll(
        _ fd: Int32,
        _ first: UnsafeRawBufferPointer,
        _ second: UnsafeRawBufferPointer
    ) -> Bool {
        let written = withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { vectors -> Int in
            vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count)
            vectors[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count)
            guard let base = vectors.baseAddress else { return 0 }
            return retryingInterrupts { writev(fd, base, 2) }
        }
        if written < 0 { return false }
        // A short write (a signal, a full disk): the rest one buffer at a time, which reports the error if any.
        if written < first.count {
            return writeAll(fd, UnsafeRawBufferPointer(rebasing: first[written...])) && writeAll(fd, second)
        }
        return writeAll(fd, UnsafeRawBufferPointer(rebasing: second[(written - first.count)...]))
    }

    /// Reads up to `count` bytes at `offset` into `buffer`, stopping at the end of the file or, once `minimum`
    /// bytes are in, at the first short read; returns how many were read, or -1 with `errno` set.
    ///
    /// A `minimum` below `count` saves the call that would only confirm the end of the file: a get asks for
    /// one byte more than the entry's length (to notice a longer file) and stops when the length is in.
    package static func read(
        _ fd: Int32,
        into buffer: UnsafeMutableRawPointer,
        count: Int,
        at offset: Int,
        minimum: Int? = nil
    ) -> Int {
        let enough = minimum ?? count
        var total = 0
        while total < count {
            let result = retryingInterrupts { pread(fd, buffer + total, count - total, off_t(offset + total)) }
            if result < 0 { return -1 }
            if result == 0 { break }
            total += result
            if total >= enough, total < count { break }
        }
        return total
    }

    /// Copies `source`'s bytes from its start (by offset: its position is not used) to `destination`: `length`
    /// bytes, or to the end of the file when `length` is `nil`. False with `errno` set when a read or a write
    /// fails, or `EIO` when the file ends before `length` bytes.
    package static func copy(from source: Int32, to destination: Int32, length: Int? = nil) -> Bool {
        var chunk = [UInt8](repeating: 0, count: min(max(length ?? 1 << 20, 1), 1 << 20))
        var offset = 0
        while length.map({ offset < $0 }) ?? true {
            let wanted = min(chunk.count, (length ?? Int.max) - offset)
            let count = chunk.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return read(source, into: base, count: wanted, at: offset, minimum: 1)
            }
            if count < 0 { return false }
            if count == 0 {
                guard length == nil else {
                    errno = EIO
                    return false
                }
                return true
            }
            guard chunk.withUnsafeBytes({ writeAll(destination, .init(rebasing: $0[0..<count])) }) else { return false }
            offset += count
        }
        return true
    }

    /// The size of an open regular file; -1 when it cannot be read or is not a regular file.
    package static func regularFileSize(_ fd: Int32) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return -1 }
        return Int(info.st_size)
    }

    /// Whether an open file is a regular file with no other hard link: one a store may write to without writing
    /// to a file that another name, perhaps outside the store, also reaches.
    package static func isSoleRegularFile(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_nlink == 1
    }

    /// Shortens or extends an open file to `length` bytes; false with `errno` set on failure.
    package static func truncate(_ fd: Int32, to length: Int) -> Bool {
        retryingInterrupts { ftruncate(fd, off_t(length)) } == 0
    }

    /// Flushes a file's data (or a folder's entries) to stable storage; on Apple platforms with `F_FULLFSYNC`.
    package static func sync(_ fd: Int32) -> Bool {
        #if canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return true }
        #endif
        return retryingInterrupts { fsync(fd) } == 0
    }
}

/// `read(2)`, named apart from ``FileDescriptor/read(_:into:count:at:minimum:)``.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
