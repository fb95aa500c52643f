#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The positional reads and size calls the store makes on an open descriptor, where Foundation adds metadata
/// calls and copies (see PEERS.md); every call on a name goes through the store's `StoreFolder`.
enum POSIX {
    /// Reads up to `count` bytes at `offset` into `buffer`, stopping at the end of the file or, once `minimum`
    /// bytes are in, at the first short read; returns how many were read, or -1 with `errno` set.
    ///
    /// A `minimum` below `count` saves the call that would only confirm the end of the file: a get asks for
    /// one byte more than the entry's length (to notice a longer file) and stops when the length is in.
    static func read(
        _ descriptor: Int32,
        into buffer: UnsafeMutableRawPointer,
        count: Int,
        at offset: Int,
        minimum: Int? = nil
    ) -> Int {
        let enough = minimum ?? count
        var total = 0
        while total < count {
            let result = pread(descriptor, buffer + total, count - total, off_t(offset + total))
            if result < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if result == 0 { break }
            total += result
            if total >= enough, total < count { break }
        }
        return total
    }

    /// The size of an open regular file; -1 when it cannot be read or is not a regular file.
    static func regularFileSize(_ descriptor: Int32) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return -1 }
        return Int(info.st_size)
    }

    /// Shortens or extends an open file to `length` bytes.
    static func truncate(_ descriptor: Int32, to length: Int) -> Bool {
        ftruncate(descriptor, off_t(length)) == 0
    }
}
