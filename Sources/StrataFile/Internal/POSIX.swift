import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the POSIX calls the store makes on its hot path, where Foundation adds metadata
/// calls and copies (see PEERS.md): `open`, `read`, `writev`, `fsync`, `rename`, `unlink`.
enum POSIX {
    /// The error for the current `errno`.
    static func lastError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }

    /// An ``Strata/StrataError/Code/io`` error for the current `errno`.
    static func ioError(_ action: String, _ path: String) -> StrataError {
        let error = lastError()
        return StrataError.io("\(action) \(path) failed: \(error.code)", underlying: error)
    }

    /// Opens a file, retrying on `EINTR`; returns -1 with `errno` set on failure.
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0o644) -> Int32 {
        while true {
            #if canImport(Darwin)
                let descriptor = Darwin.open(path, flags | O_CLOEXEC, mode)
            #elseif canImport(Glibc)
                let descriptor = Glibc.open(path, flags | O_CLOEXEC, mode)
            #else
                let descriptor = Musl.open(path, flags | O_CLOEXEC, mode)
            #endif
            if descriptor >= 0 || errno != EINTR { return descriptor }
        }
    }

    /// Closes a descriptor, ignoring errors (nothing useful can be done about them here).
    static func close(_ descriptor: Int32) {
        #if canImport(Darwin)
            _ = Darwin.close(descriptor)
        #elseif canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Musl.close(descriptor)
        #endif
    }

    /// Reads up to `count` bytes at `offset` into `buffer`; returns how many were read, or -1.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Int {
        var total = 0
        while total < count {
            let result = pread(descriptor, buffer + total, count - total, off_t(offset + total))
            if result < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if result == 0 { break }
            total += result
        }
        return total
    }

    /// Writes every byte of the buffers, in order; returns false with `errno` set on failure.
    static func writeAll(_ descriptor: Int32, _ buffers: [UnsafeRawBufferPointer]) -> Bool {
        for buffer in buffers {
            guard let base = buffer.baseAddress else { continue }
            var written = 0
            while written < buffer.count {
                #if canImport(Darwin)
                    let result = Darwin.write(descriptor, base + written, buffer.count - written)
                #elseif canImport(Glibc)
                    let result = Glibc.write(descriptor, base + written, buffer.count - written)
                #else
                    let result = Musl.write(descriptor, base + written, buffer.count - written)
                #endif
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += result
            }
        }
        return true
    }

    /// Flushes a file's data to stable storage; on Apple platforms with `F_FULLFSYNC`.
    static func sync(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
            return fsync(descriptor) == 0
        #else
            return fsync(descriptor) == 0
        #endif
    }

    /// Flushes a folder's entries (a rename, an unlink) to stable storage.
    static func syncFolder(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return sync(descriptor)
    }

    /// The size of an open file, or -1.
    static func fileSize(_ descriptor: Int32) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return -1 }
        return Int(info.st_size)
    }

    /// Removes a file; a missing file counts as removed. Returns false with `errno` set on failure.
    static func remove(_ path: String) -> Bool {
        unlink(path) == 0 || errno == ENOENT
    }

    /// Renames a file, replacing the destination atomically; returns false with `errno` set on failure.
    static func move(_ source: String, to destination: String) -> Bool {
        rename(source, destination) == 0
    }

    /// Takes an exclusive advisory lock on the whole file without waiting; false when another process holds it.
    ///
    /// A POSIX record lock (`fcntl(F_SETLK)`), not `flock`: a `flock` lock belongs to the open file description,
    /// which a child process inherits between `fork` and `exec` — so while any thread of this process spawns a
    /// child, a store that was just closed still looks locked. A record lock belongs to the process and is never
    /// inherited. Its one caveat — closing any descriptor of the file releases it — cannot bite: the lock file is
    /// opened once per folder per process (``StoreRegistry``).
    static func tryLock(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
            var lock = Darwin.flock()
        #elseif canImport(Glibc)
            var lock = Glibc.flock()
        #else
            var lock = Musl.flock()
        #endif
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        return fcntl(descriptor, F_SETLK, &lock) == 0
    }

    /// Shortens or extends an open file to `length` bytes.
    static func truncate(_ descriptor: Int32, to length: Int) -> Bool {
        ftruncate(descriptor, off_t(length)) == 0
    }
}
