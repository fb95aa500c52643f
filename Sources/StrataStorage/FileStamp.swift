#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A regular file as it was when it was looked at: its identity, size and modification time. A file that no longer
/// has the stamp it had was replaced or changed in place (a link, a folder, an edit) since.
package struct FileStamp: Hashable, Sendable {
    /// The file's device and inode.
    package let identity: FolderIdentity
    /// The file's size in bytes.
    package let size: Int64
    /// The seconds of the file's modification time since 1970.
    package let modifiedSeconds: Int
    /// The nanoseconds of the file's modification time past its second.
    package let modifiedNanoseconds: Int

    /// The stamp of the file `status` describes.
    ///
    /// - Parameter status: What `stat` said of the file.
    package init(_ status: stat) {
        #if canImport(Darwin)
            let modified = status.st_mtimespec
        #else
            let modified = status.st_mtim
        #endif
        identity = FolderIdentity(status)
        size = Int64(truncatingIfNeeded: status.st_size)
        modifiedSeconds = Int(truncatingIfNeeded: modified.tv_sec)
        modifiedNanoseconds = Int(truncatingIfNeeded: modified.tv_nsec)
    }

    /// The stamp of the regular file `descriptor` has open (one `fstat`); `nil` when it is not a regular file or
    /// cannot be looked at.
    ///
    /// - Parameter descriptor: An open file.
    package init?(openFile descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, StoreFolder.kind(mode: status.st_mode) == .file else { return nil }
        self.init(status)
    }
}

extension StoreFolder {
    /// The stamp of `name` when it is a regular file (a link is not followed); `nil` when nothing or something
    /// else is there.
    package func stamp(ofFile name: String) throws(POSIXCallError) -> FileStamp? {
        guard let status = try status(of: name), Self.kind(mode: status.st_mode) == .file else { return nil }
        return FileStamp(status)
    }
}
