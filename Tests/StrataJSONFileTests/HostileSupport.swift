import Foundation
import Strata
import Testing

@testable import StrataJSONFile

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the store keeps `key`: its shard folder's name and its file's name.
func entryLocation(of key: String) -> (shard: String, file: String) {
    JSONFileStorage.location(of: key)
}

/// Every item of a flat folder with its bytes (links as `link -> target`), for a byte-for-byte comparison.
func snapshot(of folder: URL) throws -> [String: Data] {
    var items: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
        let path = folder.appendingPathComponent(name).path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        switch attributes[.type] as? FileAttributeType {
        case .typeSymbolicLink?:
            items[name] = Data(("link -> " + (try FileManager.default.destinationOfSymbolicLink(atPath: path))).utf8)
        case .typeDirectory?:
            items[name] = Data("folder".utf8)
        default:
            items[name] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }
    return items
}

/// Every file under `folder` with its bytes, as paths relative to it.
func tree(of folder: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return files }
    while let path = enumerator.nextObject() as? String {
        var isFolder: ObjCBool = false
        let full = folder.appendingPathComponent(path).path
        if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
            files[path] = try Data(contentsOf: URL(fileURLWithPath: full))
        } else {
            files[path + "/"] = Data()
        }
    }
    return files
}

/// Whether something (a link included, dangling or not) is at `url`, without following it.
func itemExists(_ url: URL) -> Bool {
    var info = stat()
    return lstat(url.path, &info) == 0
}

/// Whether `url` is a symbolic link.
func isLink(_ url: URL) -> Bool {
    var info = stat()
    return lstat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
}

/// A folder outside the store holding files with the store's names: entry files, temporary files, an index.
func makeOutsideFolder(in parent: URL, entryNames: [String]) throws -> URL {
    let outside = parent.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    for name in entryNames {
        try Data("{\"key\":\"victim\",\"storedAt\":0,\"sequence\":1,\"value\":{}}".utf8)
            .write(to: outside.appendingPathComponent(name))
    }
    try Data("user's temporary file".utf8).write(to: outside.appendingPathComponent(".tmp-1234"))
    try Data("user's notes".utf8).write(to: outside.appendingPathComponent("notes.json"))
    return outside
}

/// A read-only bind mount of a folder (Linux, as root); `nil` with the reason when it cannot be made.
struct ReadOnlyBindMount {
    let url: URL

    /// Mounts `source` read-only on a new temporary folder.
    static func make(of source: URL) -> Result<ReadOnlyBindMount, POSIXError> {
        #if canImport(Glibc)
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-ro-\(UUID().uuidString)")
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                return .failure(POSIXError(.EIO))
            }
            guard geteuid() == 0, Glibc.mount(source.path, url.path, nil, UInt(MS_BIND), nil) == 0 else {
                try? FileManager.default.removeItem(at: url)
                return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM))
            }
            let flags = UInt(MS_REMOUNT) | UInt(MS_BIND) | UInt(MS_RDONLY)
            guard Glibc.mount(nil, url.path, nil, flags, nil) == 0 else {
                let code = errno
                _ = umount2(url.path, Int32(MNT_DETACH))
                try? FileManager.default.removeItem(at: url)
                return .failure(POSIXError(POSIXErrorCode(rawValue: code) ?? .EPERM))
            }
            return .success(ReadOnlyBindMount(url: url))
        #else
            return .failure(POSIXError(.ENOTSUP))
        #endif
    }

    /// Unmounts and removes the mount point.
    func unmount() {
        #if canImport(Glibc)
            _ = umount2(url.path, Int32(MNT_DETACH))
        #endif
        try? FileManager.default.removeItem(at: url)
    }
}
