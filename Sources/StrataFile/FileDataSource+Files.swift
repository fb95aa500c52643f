import Foundation
import Strata
import StrataStorage
internal import StrataSupport

/// The store's calls on its files: every one relative to ``FileDataSource/folder``, none following a link.
extension FileDataSource {
    /// Where a committed entry's file comes from.
    enum CommitSource {
        /// A temporary file the store created in its folder (its name there).
        case temporary(String)
        /// A file of the caller's (``FileDataSource/move(fileAt:forKey:options:)``), already moved into the folder
        /// under a temporary name and checked to be the file the caller named: that name, and the path it came from,
        /// where it goes back when it cannot be committed.
        case takenIn(String, from: String)

        /// The file's temporary name in the store's folder.
        var name: String {
            switch self {
            case .temporary(let name), .takenIn(let name, _): name
            }
        }
    }

    /// Creates a temporary file exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`, 64 random bits in its name),
    /// lets `write` fill it, flushes it in ``Durability/durable`` mode and closes it.
    ///
    /// - Returns: The temporary file's name in the folder, and its stamp once written (a rename keeps it), the
    ///   proof that a file found at an entry's name later is this one.
    /// - Throws: ``Strata/StrataError/Code/io``; the temporary file is removed then.
    func writeTemporary(_ write: (Int32) -> Bool) throws(StrataError) -> (name: String, stamp: FileStamp?) {
        let descriptor: Int32
        let name: String
        do {
            (descriptor, name) = try folder.createTemporary(prefix: Self.temporaryPrefix)
        } catch {
            throw error.strataError("Creating a temporary file")
        }
        if !write(descriptor) || (configuration.durability == .durable && !FileDescriptor.sync(descriptor)) {
            let error = POSIXCallError.last("write", folder.qualified(name))
            _ = close(descriptor)
            _ = try? folder.remove(name)
            throw error.strataError("Writing an entry")
        }
        let stamp = FileStamp(openFile: descriptor)
        _ = close(descriptor)
        return (name, stamp)
    }

    /// Renames a finished file over the entry and records it, unless a later put of the key already has.
    ///
    /// Puts are ordered by the sequence each took before writing its file, against the index entry's
    /// ``EntryIndex/Entry/putSequence``: a renewal of the entry in between is not a later put, so it does not
    /// make this one lose.
    ///
    /// The rename replaces the entry's file only while the name holds the file the store wrote there (its stamp,
    /// one `fstatat`); anything else at the name is cleared as ``renameOverEntry(_:_:replacing:)`` says.
    ///
    /// - Parameter stamp: The stamp of the file committed, kept in the index as the proof that it is the store's.
    func commit(from source: CommitSource, trailer: EntryTrailer, fileLength: Int, stamp: FileStamp?) throws {
        let name = EntryName(key: trailer.key)
        let now = configuration.clock.now()
        try withState { state in
            let existing = state.index.entry(name)
            if let existing, existing.putSequence > trailer.writeSequence {
                discard(source)  // a later put of this key won; this one is overwritten at once
                return
            }
            do throws(POSIXCallError) {
                try renameOverEntry(
                    source,
                    name.fileName,
                    replacing: existing.map(holdsOwnFile) ?? false,
                    reports: &state.pendingReports
                )
            } catch {
                switch source {
                case .temporary: discard(source)
                case .takenIn(let name, let path):
                    do throws(POSIXCallError) {
                        _ = try folder.giveBack(name, to: path)
                    } catch let kept {
                        throw StrataError(
                            .io,
                            "Renaming a file over an entry failed (\(error)), and the file could not be moved back to "
                                + "\(path) (\(kept)): it is at \(folder.qualified(name)), which the store removes when it "
                                + "next opens",
                            underlying: error
                        )
                    }
                }
                throw error.strataError("Renaming a file over an entry")
            }
            var entry = EntryIndex.Entry(
                name: name,
                trailer: trailer,
                lastAccess: now,
                accessSequence: 0,
                fileLength: fileLength,
                stamp: stamp
            )
            entry.accessSequence = state.index.nextSequence()
            state.index.insert(entry)
            var failure: POSIXCallError?
            if configuration.durability == .durable {
                do throws(POSIXCallError) { try folder.sync() } catch { failure = error }
            }
            // The value is stored: an eviction that failed after it is reported, not thrown.
            evictOrReport(&state, now: now)
            if let failure { throw failure.strataError("Flushing the store folder") }
        }
    }

    /// Evicts as ``evict(_:now:)`` does, after a write or as the store opens; a failure is a report for the
    /// diagnostics closure (``Strata/StrataError/failedEviction(by:_:overLimits:)``), handed to it once the lock is
    /// released.
    func evictOrReport(_ state: inout State, now: Date) {
        guard let failure = evict(&state, now: now) else { return }
        let report = StrataError.failedEviction(by: "FileDataSource", failure, overLimits: isOverLimits(state))
        state.pendingReports.append(report)
    }

    /// Runs `body` under the lock, then hands the reports it made to the diagnostics closure with no lock held, so
    /// that the closure may call the store (or whatever called it).
    func withState<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        var reports: [StrataError] = []
        defer {
            for pending in reports { report(pending) }
        }
        return try state.withLock { state in
            defer {
                reports = state.pendingReports
                state.pendingReports = []
            }
            return try body(&state)
        }
    }

    /// Whether the entry's name still holds the file the store wrote there: the stamp in the index (one `fstatat`),
    /// or, when the index has none, whatever is there.
    private func holdsOwnFile(_ entry: EntryIndex.Entry) -> Bool {
        entry.isOwnFile(stamped: try? folder.stamp(ofFile: entry.name.fileName))
    }

    /// Renames `source` to the entry file `fileName`, once more after clearing the name when something is in the
    /// way.
    ///
    /// Over an entry's own file (`replacing`), the rename replaces it atomically. Where the index knows no entry,
    /// or the name no longer holds the file the store wrote, the rename never replaces (``StrataStorage/StoreFolder/renameWithoutReplacing(_:to:)``): a file
    /// planted at the name since the store opened is removed only when its sealed trailer proves it the store's,
    /// and set aside otherwise (``EntryFile/dispose(_:in:written:)``). Either way a folder or other non-file there is set
    /// aside; what was done is reported to `diagnostics`.
    private func renameOverEntry(
        _ source: CommitSource,
        _ fileName: String,
        replacing: Bool,
        reports: inout [StrataError]
    ) throws(POSIXCallError) {
        do {
            try rename(source, to: fileName, replacing: replacing)
        } catch {
            guard error.isWrongKind || error.code == ENOTEMPTY || error.alreadyExists else { throw error }
            guard let disposal = try? EntryFile.dispose(fileName, in: folder) else { throw error }
            if let done = disposal.report {
                reports.append(
                    StrataError(
                        .corrupt,
                        "FileDataSource found an item in the way of the entry file \(folder.qualified(fileName)): \(done)"
                    )
                )
            }
            try rename(source, to: fileName, replacing: replacing)
        }
    }

    private func rename(_ source: CommitSource, to fileName: String, replacing: Bool) throws(POSIXCallError) {
        if replacing {
            try folder.rename(source.name, to: fileName)
        } else {
            try folder.renameWithoutReplacing(source.name, to: fileName)
        }
    }

    private func discard(_ source: CommitSource) {
        _ = try? folder.remove(source.name)
    }

    /// Copies a file the store cannot take in by rename — it is on another volume, or another name shares it —
    /// into a temporary file with `encodedTrailer` after its payload, commits that, and removes the caller's name
    /// for it. Nothing is ever written to the file: on failure it is as it was.
    func copyIn(_ source: String, descriptor: Int32, trailer: EntryTrailer, encodedTrailer: [UInt8]) throws {
        let length = trailer.payloadSize
        let temporary = try writeTemporary { output in
            FileDescriptor.copy(from: descriptor, to: output, length: length)
                && encodedTrailer.withUnsafeBytes { FileDescriptor.writeAll(output, $0) }
        }
        try commit(
            from: .temporary(temporary.name),
            trailer: trailer,
            fileLength: length + encodedTrailer.count,
            stamp: temporary.stamp
        )
        // The caller's name for the file goes only while it still names the file copied (its folder is the caller's:
        // another file may have been put there since).
        if let opened = FolderIdentity(openFile: descriptor), FolderIdentity(itemAt: source) == opened {
            _ = unlink(source)
        }
    }

    /// The content hash (``FileEntryInfo/contentHash``) an entry of the first `size` bytes of the open file
    /// `descriptor` gets; `nil` when the file cannot be read that far.
    package static func contentHash(ofFile descriptor: Int32, size: Int) -> UInt64? {
        var hasher = ContentChecksum()
        return hashFile(descriptor, size: size, into: &hasher) ? hasher.finalize() : nil
    }

    /// Hashes the first `size` bytes of the open file `descriptor` into `hasher`, through one buffer of at most
    /// 1 MiB; false when the file cannot be read that far.
    static func hashFile(_ descriptor: Int32, size: Int, into hasher: inout ContentChecksum) -> Bool {
        if case .done = streamFile(descriptor, size: size, into: &hasher) { true } else { false }
    }

    /// How ``streamFile(_:size:into:copyingTo:)`` ended: every byte through, the file's end before `size` bytes, or
    /// the `errno` of the side that failed.
    enum StreamOutcome {
        case done
        case endedEarly
        case readFailed(Int32)
        case writeFailed(Int32)
    }

    /// A test seam: an `errno` every read of ``streamFile(_:size:into:copyingTo:)`` fails with, as on a disk with a
    /// bad sector (no file on a sound disk can be made to fail a read once it is open).
    @TaskLocal package static var failingReads: Int32?

    /// Hashes the first `size` bytes of the open file `descriptor` into `hasher`, through one buffer of at most
    /// 1 MiB, writing them to `destination` as they go when one is given.
    static func streamFile(
        _ descriptor: Int32,
        size: Int,
        into hasher: inout ContentChecksum,
        copyingTo destination: Int32? = nil
    ) -> StreamOutcome {
        var buffer = [UInt8](repeating: 0, count: min(max(size, 1), 1 << 20))
        var offset = 0
        while offset < size {
            if let code = failingReads { return .readFailed(code) }
            let count = buffer.withUnsafeMutableBytes { chunk -> Int in
                guard let base = chunk.baseAddress else { return -1 }
                return FileDescriptor.read(descriptor, into: base, count: min(chunk.count, size - offset), at: offset)
            }
            if count == 0 { return .endedEarly }
            guard count > 0 else { return .readFailed(errno) }
            let written = buffer.withUnsafeBytes { bytes -> Bool in
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[0..<count])
                hasher.update(chunk)
                return destination.map { FileDescriptor.writeAll($0, chunk) } ?? true
            }
            guard written else { return .writeFailed(errno) }
            offset += count
        }
        return .done
    }

    /// Unlinks an entry's file and forgets the entry; a missing file counts as removed.
    ///
    /// The file is deleted only when the store can prove it its own: it still has the stamp the index keeps (one
    /// `fstatat`), or else what stands at the name ends in a sealed trailer (one `openat`, `fstat`, `pread` of the
    /// trailer and `fstatat`; see ``EntryFile/dispose(_:in:written:)``): a file planted there since the store
    /// wrote it is set aside and reported to `diagnostics`, a link removed itself, a folder set aside.
    ///
    /// - Returns: Whether something was at the name (removed or set aside).
    /// - Throws: ``Strata/StrataError/Code/io`` when the file exists and can be neither removed nor set aside:
    ///   the entry then stays, as the file does.
    @discardableResult
    func removeFile(_ name: EntryName, in state: inout State) throws(StrataError) -> Bool {
        let disposal: EntryFile.Disposal
        do {
            disposal = try EntryFile.dispose(name.fileName, in: folder, written: state.index.entry(name)?.stamp)
        } catch {
            throw error.strataError("Removing an entry")
        }
        state.index.remove(name)
        if case .setAside(let aside) = disposal {
            state.pendingReports.append(
                StrataError(
                    .corrupt,
                    "FileDataSource found an item it cannot prove it wrote at the entry file "
                        + "\(folder.qualified(name.fileName)) when removing the entry: set aside as \(aside)"
                )
            )
        }
        return disposal != .absent
    }

    /// Removes the files of `names`, reporting each to the eviction observer when a `reason` is given; the first
    /// failure, after trying every one.
    func removeFiles(_ names: [EntryName], reason: StoreEviction.Reason? = nil, in state: inout State) -> StrataError? {
        var failure: StrataError?
        for name in names {
            do {
                if let reason {
                    try evictFile(name, reason: reason, in: &state)
                } else {
                    try removeFile(name, in: &state)
                }
            } catch {
                failure = failure ?? error
            }
        }
        return failure
    }

    /// Removes expired entries, then the least recently used while over a limit, passing over the entries that cannot
    /// be removed by the rule of ``StrataStorage/StuckEvictions``; the first failure when a file could not be removed.
    @discardableResult
    func evict(_ state: inout State, now: Date) -> StrataError? {
        guard isOverLimits(state) else { return nil }
        let expired = removeFiles(state.index.expiredNames(at: now), reason: .expired, in: &state)
        let stuck = StuckEvictions.pass(
            &state,
            newest: state.index.mostRecentlyUsed?.name,
            isOverLimits: { isOverLimits($0) },
            leastRecentlyUsed: { $0.index.leastRecentlyUsed?.name },
            evict: { name, state throws(StrataError) in
                let reason: StoreEviction.Reason =
                    state.index.count > (configuration.countLimit ?? .max) ? .countLimit : .sizeLimit
                try evictFile(name, reason: reason, in: &state)
            },
            moveToBack: { name, state in _ = state.index.touch(name, at: now) }
        )
        return expired ?? stuck.map { ($0 as? StrataError) ?? StrataError.io("Evicting an entry", underlying: $0) }
    }

    /// Whether the store holds more entries, more bytes of data or more of keys and metadata than its limits allow.
    func isOverLimits(_ state: State) -> Bool {
        state.index.count > (configuration.countLimit ?? .max)
            || state.index.totalSize > (configuration.maxSize ?? .max)
            || state.index.metadataSize > configuration.maximumMetadataSize
    }

    /// Writes the access journal, unless the one saved last is the index as it is: an exclusively created temporary
    /// file renamed over `.strata-index`, so a link planted at either name is replaced, never written through.
    /// Failures are ignored, as the journal only refines the recency order (and the next save tries again).
    func saveJournal(_ state: inout State) {
        let revision = state.index.revision
        guard state.savedJournalRevision != revision else { return }
        let bytes = AccessJournal.encode(state.index.entriesByRecency)
        let saved: Void? = try? folder.writeAtomically(
            bytes,
            to: AccessJournal.fileName,
            temporaryPrefix: Self.temporaryPrefix,
            durable: false
        )
        if saved != nil { state.savedJournalRevision = revision }
    }
}
