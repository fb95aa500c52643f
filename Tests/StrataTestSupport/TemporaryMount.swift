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
    ///
    /// Linux refuses a read-only remount (`EBUSY`) while any process holds a file of the mount open for writing.
    /// When this process holds one, that is what the test is about (a store that did not close its files): the
    /// error names them. When only another process does, it is a child a concurrent test is starting, which holds a
    /// copy of this process's descriptors until it runs its program (they are all close-on-exec): the remount is
    /// tried again, for at most a second.
    package func remount(readOnly: Bool) throws {
        #if canImport(Glibc)
            let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
            var attempts = 0
            while Glibc.mount("tmpfs", url.path, "tmpfs", flags, nil) != 0 {
                let code = errno
                attempts += 1
                guard code == EBUSY, readOnly, attempts < 200 else {
                    throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EPERM)
                }
                let held = Self.openPaths(under: url.path)
                guard held.isEmpty else { throw HeldFiles(paths: held) }
                usleep(5_000)
            }
        #endif
    }

    /// Files of a mount this process still holds open, which keep it from becoming read-only.
    package struct HeldFiles: Error, CustomStringConvertible {
        package let paths: [String]
        package var description: String { "This process holds files of the mount open: \(paths)" }
    }

    /// The paths under `folder` of this process's open descriptors.
    private static func openPaths(under folder: String) -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { name in
            guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                path.hasPrefix(folder + "/")
            else { return nil }
            return path
        }
    }

    /// Unmounts and removes the folder.
    package func unmount() {
        #if canImport(Glibc)
            _ = umount2(url.path, Int32(MNT_DETACH))
        #endif
        try? FileManager.default.removeItem(at: url)
    }
}
