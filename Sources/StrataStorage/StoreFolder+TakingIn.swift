#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What became of a file outside the folder that ``StoreFolder/takeIn(_:expecting:temporaryPrefix:)`` moved in.
package enum TakenInFile: Sendable, Equatable {
    /// The file the caller has open is in the folder under this temporary name, the store's now.
    case taken(String)
    /// Another file had been put at the path: it was moved back there (`keptAs` is `nil`), or, when the path had
    /// been taken once more meanwhile, kept in the folder under `keptAs`, a name the store never reads or deletes.
    case replaced(keptAs: String?)
}

extension StoreFolder {
    /// A test seam: run with the path just before ``takeIn(_:expecting:temporaryPrefix:)`` renames it, where a test
    /// puts another file at the path as a hostile folder's owner would.
    @TaskLocal package static var beforeTakingIn: (@Sendable (String) -> Void)?

    /// The prefix of the name a file wrongly moved in is kept under when it cannot be moved back: never an entry's,
    /// never a temporary file's, so no store reads it or removes it.
    package static let foreignPrefix = ".strata-foreign-"

    /// Moves the file at `path` (outside the folder) into it under a new temporary name, and keeps it only if it is
    /// the file `descriptor` has open.
    ///
    /// A file's path can be made to name another file between the moment the caller opened it and this rename (its
    /// folder is the caller's, not the store's); the rename is then checked by device and inode, and a file that is
    /// not the one opened is moved back to `path` — never over something made there since (a hard link, which
    /// fails rather than replace) — or else kept aside (``TakenInFile/replaced(keptAs:)``). The temporary name is
    /// created exclusively first, so the rename replaces only the store's own empty file.
    ///
    /// - Returns: Where the file went.
    /// - Throws: ``POSIXCallError`` when the file cannot be moved in (`EXDEV` when `path` is on another volume):
    ///   nothing then changed at `path`; or when a file that was not the one opened could be neither moved back nor
    ///   kept (``giveBack(_:to:)``).
    package func takeIn(
        _ path: String,
        expecting descriptor: Int32,
        temporaryPrefix: String
    ) throws(POSIXCallError) -> TakenInFile {
        let (reserved, name) = try createTemporary(prefix: temporaryPrefix)
        _ = close(reserved)
        Self.beforeTakingIn?(path)
        guard FileDescriptor.retryingInterrupts({ renameat(AT_FDCWD, path, self.descriptor, name) }) == 0 else {
            let error = POSIXCallError.last("renameat", path)
            _ = try? remove(name)
            throw error
        }
        if let opened = FolderIdentity(openFile: descriptor), let moved = try? status(of: name),
            FolderIdentity(moved) == opened
        {
            return .taken(name)
        }
        return .replaced(keptAs: try giveBack(name, to: path))
    }

    /// Moves `name` back out to `path` without replacing anything there; when `path` is taken, renames it to a
    /// name under ``foreignPrefix`` instead and returns that name (`nil` when it went back).
    ///
    /// - Throws: ``POSIXCallError`` when even that rename fails: the file is still at `name`, a temporary name a
    ///   store's next open removes, never a name to report as kept.
    package func giveBack(_ name: String, to path: String) throws(POSIXCallError) -> String? {
        if FileDescriptor.retryingInterrupts({ linkat(self.descriptor, name, AT_FDCWD, path, 0) }) == 0 {
            _ = try? remove(name)
            return nil
        }
        for _ in 0..<8 {
            let kept = Self.foreignPrefix + String(UInt64.random(in: .min ... .max), radix: 16)
            do throws(POSIXCallError) {
                try renameWithoutReplacing(name, to: kept)
                return kept
            } catch  where error.alreadyExists {
                continue
            }
        }
        throw POSIXCallError(call: "renameat2", path: qualified(name), code: EEXIST)
    }
}
