import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POSIX error number with the call and the path that produced it.
struct POSIXFileError: Error, CustomStringConvertible {
    let call: String
    let path: String
    let code: Int32

    var description: String {
        "\(call)(\(path)) failed: \(String(cString: strerror(code))) (errno \(code))"
    }

    var isNotFound: Bool { code == ENOENT }
}

/// Thin wrappers over POSIX file calls: atomic writes without the implicit fsync of `Data.write(to:)`,
/// reads that tell a missing file from a failing one, and directory fsync.
enum POSIXFile {
    /// Reads a whole file; `nil` when it does not exist.
    static func read(_ path: String) throws -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw POSIXFileError(call: "open", path: path, code: code)
        }
        defer { close(fd) }
        // Read straight into a buffer of the file's size (plus one byte, to notice a file that grew), then
        // go on in chunks only if it did: one allocation and usually two `read` calls.
        var info = stat()
        let expected = fstat(fd, &info) == 0 ? max(Int(info.st_size), 0) : 0
        var data = Data(count: expected + 1)
        var length = 0
        while true {
            if length == data.count { data.count += max(64 * 1024, data.count) }
            let count = data.withUnsafeMutableBytes { buffer in
                posixRead(fd, buffer.baseAddress.map { $0 + length }, buffer.count - length)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXFileError(call: "read", path: path, code: errno)
            }
            if count == 0 { break }
            length += count
        }
        data.count = length
        return data
    }

    /// Opens a file for appending.
    static func openForAppending(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXFileError(call: "open", path: path, code: errno) }
        return fd
    }

    /// Writes all bytes to an open descriptor.
    static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard var pointer = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = write(fd, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw POSIXFileError(call: "write", path: path, code: errno)
                }
                remaining -= written
                pointer += written
            }
        }
    }

    /// Writes `data` to a temporary file and renames it over `path`, in `folder`.
    ///
    /// The temporary file is created in `temporaryFolder` (by default `folder`), which must be on the same
    /// file system. With `durable`, it is fsynced before the rename (so that after a power loss the name
    /// holds either the old or the whole new bytes) and, with `syncsFolder` too, `folder` after it (so that
    /// the rename itself survives one). A caller that passes `syncsFolder: false` must sync the folder itself
    /// before it reports the write durable.
    /// Throws `ENOENT` (as ``POSIXFileError``) when a folder does not exist, except that with a
    /// `temporaryFolder`, `makeFolder` (when given) is called once when `folder` is missing.
    static func writeAtomically(
        _ data: Data,
        to path: String,
        folder: String,
        temporaryFolder: String? = nil,
        durable: Bool,
        syncsFolder: Bool = true,
        makeFolder: (() throws -> Void)? = nil
    ) throws {
        // A random name from `getrandom` (Foundation's `UUID()` opens and reads `/dev/urandom` on Linux);
        // `O_EXCL` refuses the one-in-2⁶⁴ clash with a leftover, and the next name is drawn.
        var fd: Int32 = -1
        var temporary = ""
        var madeFolder = false
        for _ in 0..<4 {
            temporary = (temporaryFolder ?? folder) + "/.tmp-" + String(UInt64.random(in: .min ... .max), radix: 16)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 { break }
            if errno == ENOENT, temporaryFolder != nil, let makeFolder, !madeFolder {
                // The whole store folder was removed: `makeFolder` makes it again with the entry's folder.
                try makeFolder()
                madeFolder = true
                continue
            }
            if errno != EEXIST { break }
        }
        guard fd >= 0 else { throw POSIXFileError(call: "open", path: temporary, code: errno) }
        do {
            do {
                try writeAll(fd, data, path: temporary)
                if durable, fsync(fd) != 0 { throw POSIXFileError(call: "fsync", path: temporary, code: errno) }
            } catch {
                close(fd)
                throw error
            }
            close(fd)
            if rename(temporary, path) != 0 {
                // The folder is missing (a new shard): made once, then the same file is renamed into it.
                guard errno == ENOENT, temporaryFolder != nil, let makeFolder, !madeFolder else {
                    throw POSIXFileError(call: "rename", path: path, code: errno)
                }
                try makeFolder()
                guard rename(temporary, path) == 0 else {
                    throw POSIXFileError(call: "rename", path: path, code: errno)
                }
            }
        } catch {
            unlink(temporary)
            throw error
        }
        if durable, syncsFolder { try syncFolder(folder) }
    }

    /// Flushes a folder's entries (creations, renames, removals) to the disk.
    static func syncFolder(_ folder: String) throws {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXFileError(call: "open", path: folder, code: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw POSIXFileError(call: "fsync", path: folder, code: errno) }
    }

    /// Removes a file; returns whether it existed.
    @discardableResult
    static func remove(_ path: String) throws -> Bool {
        if unlink(path) == 0 { return true }
        let code = errno
        if code == ENOENT { return false }
        throw POSIXFileError(call: "unlink", path: path, code: code)
    }

    /// Creates a folder (and its parents); succeeds when it exists.
    static func makeFolder(_ path: String) throws {
        if mkdir(path, 0o755) == 0 { return }
        let code = errno
        if code == EEXIST { return }
        if code == ENOENT {
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty, parent != path {
                try makeFolder(parent)
                if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
            }
        }
        throw POSIXFileError(call: "mkdir", path: path, code: code)
    }

    /// Renames a file; fails when the source does not exist.
    static func move(_ source: String, to destination: String) throws {
        guard rename(source, destination) == 0 else {
            throw POSIXFileError(call: "rename", path: source, code: errno)
        }
    }

    /// Whether something exists at `path`.
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The names in a folder, without `.` and `..`; empty when the folder does not exist.
    static func names(in folder: String) throws -> [String] {
        guard let directory = opendir(folder) else {
            let code = errno
            if code == ENOENT { return [] }
            throw POSIXFileError(call: "opendir", path: folder, code: code)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}

@inline(__always)
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
