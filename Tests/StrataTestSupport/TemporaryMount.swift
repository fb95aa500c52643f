import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small tmpfs mounted for one test (root only); ``isAvailable`` tells whether this machine allows it.
package struct TemporaryMount {
    package let url: URL

    /// Whether a tmpfs can be mounted here: Linux, as root, with the mount permitted.
    package static let isAvailable: Bool = {
        #if canImport(Glibc)
            guard geteuid() == 0, let probe = try? TemporaryMount(size: "64k") else { return false }
            probe.unmount()
            return true
        #else
            return false
        #endif
    }()

    /// Mounts a tmpfs of `size` (`"1m"`) on a new temporary folder.
    package init(size: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-mount-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        #if canImport(Glibc)
            guard Glibc.mount("tmpfs", url.path, "tmpfs", 0, "size=\(size)") == 0 else {
                try? FileManager.default.removeItem(at: url)
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM)
            }
        #else
            throw POSIXError(.ENOTSUP)
        #endif
    }

    /// Makes the mount read-only or writable again.
    package func remount(readOnly: Bool) throws {
        #if canImport(Glibc)
            let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
            guard Glibc.mount("tmpfs", url.path, "tmpfs", flags, nil) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM)
            }
        #endif
    }

    /// Unmounts and removes the folder.
    package func unmount() {
        #if canImport(Glibc)
            _ = umount2(url.path, Int32(MNT_DETACH))
        #endif
        try? FileManager.default.removeItem(at: url)
    }
}
