import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One owner's hold on a store folder: in this process through ``StoreRegistry``, across processes through an
/// advisory lock (`flock`) on `.strata-lock`. A ``FileDataSource`` and a ``FileStoreInspector`` each take one.
struct StoreClaim: Sendable {
    /// The folder, with symbolic links resolved.
    let folderURL: URL

    /// The folder's path, ending in `/`.
    let folderPath: String

    /// The open lock file; closing it releases the lock.
    let lockDescriptor: Int32

    /// Claims an existing folder.
    ///
    /// - Throws: ``Strata/StrataError/Code/alreadyInUse`` when a live store or inspector holds it,
    ///   ``Strata/StrataError/Code/io`` when the lock file cannot be opened.
    static func take(_ folder: URL) throws -> StoreClaim {
        let resolved = folder.resolvingSymlinksInPath().standardizedFileURL
        let path = resolved.path.hasSuffix("/") ? resolved.path : resolved.path + "/"
        guard StoreRegistry.claim(path) else {
            throw StrataError(.alreadyInUse, "A live FileDataSource already uses \(path)")
        }
        let lockPath = path + ".strata-lock"
        let descriptor = POSIX.open(lockPath, O_RDWR | O_CREAT)
        guard descriptor >= 0 else {
            let error = POSIX.ioError("Opening the lock file", lockPath)
            StoreRegistry.release(path)
            throw error
        }
        guard POSIX.tryLock(descriptor) else {
            POSIX.close(descriptor)
            StoreRegistry.release(path)
            throw StrataError(.alreadyInUse, "Another process holds the store folder \(path)")
        }
        return StoreClaim(folderURL: resolved, folderPath: path, lockDescriptor: descriptor)
    }

    /// Gives the folder up: closes the lock file and leaves the registry.
    func release() {
        POSIX.close(lockDescriptor)
        StoreRegistry.release(folderPath)
    }
}
