import Foundation
import Strata
import StrataFile
import StrataStorage

/// The provider's calls on files outside the held checkout folder: the download it copies in, and the checkout
/// folder's path, which it hands out.
extension FileCacheProvider {
    /// Copies the download at `file` into a new staged file of the held checkout folder: the download opened
    /// without following a link and required to be a regular file, the copy created exclusively.
    ///
    /// - Returns: The staged file's name.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when `file` is a link, a folder or anything but a
    ///   regular file, ``Strata/StrataError/Code/io`` when it cannot be read or copied; nothing is left in the
    ///   checkout folder then.
    func stage(_ file: URL) throws(StrataError) -> String {
        let path = file.path
        // The caller's path: links among its parents are theirs, the file itself must not be one. O_NONBLOCK: a
        // pipe there cannot hang the open (the type check refuses it).
        let source = FileDescriptor.retryingInterrupts { open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard source >= 0 else {
            let error = POSIXCallError.last("open", path)
            if error.isLink { throw StrataError(.invalidArgument, "\(path) is a symbolic link, not a downloaded file") }
            throw error.strataError("Opening the download")
        }
        defer { _ = close(source) }
        guard FileDescriptor.regularFileSize(source) >= 0 else {
            throw StrataError(.invalidArgument, "\(path) is not a regular file (a folder or a device is there)")
        }
        do {
            return try folder.copyIn(source, temporaryPrefix: Self.stagedPrefix, mode: Self.checkoutMode)
        } catch {
            throw error.strataError("Copying \(path) into the checkout folder")
        }
    }

    /// Whether the staged copy `name` holds the data of the entry `info` describes: the same size and content hash
    /// (one read of the copy, just written). A download changed between its copy and its move into the store fails.
    func stagedCopy(_ name: String, holds info: FileEntryInfo) -> Bool {
        guard let descriptor = try? folder.openFile(name, O_RDONLY) else { return false }
        defer { _ = close(descriptor) }
        guard FileDescriptor.regularFileSize(descriptor) == info.size else { return false }
        return FileDataSource.contentHash(ofFile: descriptor, size: info.size) == info.contentHash
    }

    /// Renames a folder found at the checkout name `name` (a sync client's or a user's: the name is computable) out
    /// of the way of the checkout's rename, to `<name>.set-aside-<random hex>`, which the provider never reads nor
    /// deletes. A file or a link there is left to the rename, which replaces it.
    ///
    /// - Throws: ``StrataStorage/POSIXCallError`` when the folder cannot be renamed.
    func setAsideFolder(at name: String) throws(POSIXCallError) {
        guard try folder.kind(of: name) == .folder else { return }
        try folder.renameWithoutReplacing(
            name,
            to: name + ".set-aside-" + String(UInt64.random(in: .min ... .max), radix: 16)
        )
    }

    /// The URL of the checkout `name`, once ``checkFolderPath()`` has found that it leads into the held folder.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when the checkout folder's path leads elsewhere or nowhere.
    func handOut(_ name: String) throws(StrataError) -> URL {
        try checkFolderPath()
        return checkoutFolder.appendingPathComponent(name)
    }

    /// Checks that ``checkoutFolder``'s path, links followed, still reaches the folder the provider holds (the
    /// same device and inode): a URL made from it then names a file the provider wrote.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when it leads elsewhere (the folder was moved, or replaced by a
    ///   link to another folder) or nowhere.
    func checkFolderPath() throws(StrataError) {
        var status = stat()
        let found = FileDescriptor.retryingInterrupts { stat(checkoutFolder.path, &status) } == 0
        guard found, FolderIdentity(status) == folder.identity else {
            throw StrataError(
                .io,
                "The checkout folder \(checkoutFolder.path) is no longer the folder the provider opened "
                    + "(\(folder.identity)): it was moved, removed or replaced, so nothing is handed out from it. "
                    + "Open a new provider"
            )
        }
    }
}
