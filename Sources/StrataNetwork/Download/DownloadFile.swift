import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one place a download's file is made and deleted, for every transport and every caller that gives one up.
///
/// The file is new (`O_EXCL`: whatever already holds the name, a file, a folder or a link, is an error, never
/// written through) and private to its user; deleting it removes that name only (`unlink`: a folder swapped in at the
/// name is not emptied, a link is removed without touching what it points to).
package enum DownloadFile {
    /// Creates the file at `url` and opens it for writing, or fails with ``Strata/StrataError/Code/io`` naming it.
    package static func create(at url: URL) throws(StrataError) -> DownloadFileWriter {
        DownloadFileWriter(descriptor: try openNew(at: url), url: url)
    }

    /// The writer of a new file at `url`, which creates it as the first job of its own queue: the caller never waits
    /// for the file system (a create on a network mount that hangs holds that queue only). A failure to create the
    /// file is told as the failure of every chunk queued and of ``DownloadFileWriter/whenWritten(_:)``: the
    /// ``Strata/StrataError/Code/io`` error ``create(at:)`` throws.
    package static func createQueued(at url: URL) -> DownloadFileWriter {
        DownloadFileWriter(creating: url)
    }

    /// Creates the file at `url` and opens it for writing: its descriptor, or ``Strata/StrataError/Code/io`` naming it.
    static func openNew(at url: URL) throws(StrataError) -> Int32 {
        DownloadFileWriter.hold(.open, at: url)
        var descriptor: Int32
        repeat {
            descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw StrataError.io("Cannot create the download file \(url.path): \(reason)")
        }
        return descriptor
    }

    /// Deletes the file at `url` if it is still there: the name only, never a folder's contents.
    package static func remove(at url: URL) {
        _ = unlink(url.path)
    }
}
