import Foundation
import Strata
import StrataStorage
internal import StrataSupport

extension FileDataSource {
    /// What reading one entry file gave: its payload (the bytes in memory, or nothing when they were copied
    /// elsewhere) and its trailer, or why it is not a readable entry.
    private enum FileRead<Payload> {
        case entry(Payload, EntryTrailer)
        case problem(EntryFileProblem)
    }

    /// Reads an entry into memory: a lookup and touch under the lock, then the file read outside it.
    ///
    /// An entry of more than ``Configuration/maximumReadSize`` bytes is not read: `nil`, a
    /// ``Strata/StrataError/Code/tooLarge`` report to `diagnostics`, and the entry kept.
    ///
    /// An entry whose file cannot be read for want of permission is a miss (it is left alone until it can be read);
    /// any other failure to read it (out of descriptors or memory, an I/O error) is thrown: the store cannot tell.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - markingUsed: Whether the read is a use: it marks the entry most recently used and evicts it when it
    ///     has expired. Without it the read changes nothing in the store but a damaged file's removal.
    /// - Throws: ``Strata/StrataError/Code/io`` when the entry's file cannot be read, naming the call and its
    ///   `errno`; the entry is kept.
    func read(_ key: String, markingUsed: Bool = true) throws(StrataError) -> (data: Data, trailer: EntryTrailer)? {
        let limit = configuration.maximumReadSize
        var failure: POSIXCallError?
        let read = readEntry(key, markingUsed: markingUsed, readLimit: limit) { name, expected -> FileRead<Data> in
            let read = readFile(name, length: expected.fileLength)
            if case .problem(.unreadable(let error)) = read, !error.isPermissionProblem { failure = error }
            return read
        }
        if let failure { throw failure.strataError("Reading \(StrataError.quoted(key: key)) from the store") }
        return read.map { (data: $0.payload, trailer: $0.trailer) }
    }

    /// ``read(_:markingUsed:)`` for the calls that cannot throw: a file that cannot be read is a miss, reported to
    /// `diagnostics`.
    func readReportingFailures(
        _ key: String,
        markingUsed: Bool = true
    ) -> (data: Data, trailer: EntryTrailer)? {
        do {
            return try read(key, markingUsed: markingUsed)
        } catch {
            report(
                StrataError(
                    error.code,
                    "FileDataSource answered nil for an entry it could not read (\(error.message)): the entry is kept",
                    underlying: error
                )
            )
            return nil
        }
    }

    /// Copies the data of the entry under `key` into the open file `destination` — from its start, replacing
    /// whatever it held — through one buffer of at most 1 MiB, whatever the entry's size
    /// (``Configuration/maximumReadSize`` does not apply), and marks the entry as just used.
    ///
    /// The file's length and metadata are checked before anything is copied, and the data against the entry's content
    /// hash when the store ``Configuration/verifiesContent``: a damaged file is handled as a read handles it.
    ///
    /// - Returns: What the store knows of the entry copied; `nil` when there is none, it has expired, its file is
    ///   damaged or cannot be read (`destination` may then hold part of the data).
    /// - Throws: ``Strata/StrataError/Code/io`` when `destination` cannot be written (a full disk): the entry is
    ///   kept, and nothing is tried again.
    package func copyValue(forKey key: String, to destination: Int32) throws(StrataError) -> FileEntryInfo? {
        var failure: POSIXCallError?
        let copied = readEntry(key, markingUsed: true) { name, expected -> FileRead<Void> in
            switch copyFile(name, expecting: expected, to: destination) {
            case .success(let read): return read
            case .failure(let error):
                failure = error
                return .problem(.unreadable(error))  // ends the read; the entry stays
            }
        }
        if let failure { throw failure.strataError("Copying \(StrataError.quoted(key: key)) out of the store") }
        return copied.map { FileEntryInfo($0.trailer, lastAccess: $0.lastAccess) }
    }

    /// Reads an entry with `load`: a lookup and touch under the lock, then the file read outside it.
    ///
    /// A concurrent put of the same key may replace the file between the two; the write sequence in the
    /// trailer tells, and the read starts again. A damaged file is removed only if the index still names
    /// the entry the read expected, so a file another thread just wrote is never taken for a damaged one.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - markingUsed: Whether the read is a use (see ``read(_:markingUsed:)``).
    ///   - readLimit: The most bytes of data `load` reads: an entry the index says is larger is neither loaded nor
    ///     marked used, and is reported to `diagnostics` as ``Strata/StrataError/Code/tooLarge``.
    ///   - load: Reads the file of the entry's name; given the index's entry for it, which it expects to find.
    private func readEntry<Payload>(
        _ key: String,
        markingUsed: Bool,
        readLimit: Int = .max,
        load: (EntryName, EntryIndex.Entry) -> FileRead<Payload>
    ) -> (payload: Payload, trailer: EntryTrailer, lastAccess: Date)? {
        let name = EntryName(key: key)
        for _ in 0..<4 {
            let now = configuration.clock.now()
            let snapshot = withState { state -> EntryIndex.Entry? in
                guard let entry = state.index.entry(name), entry.trailer.key == key else {
                    return nil
                }
                if let expiresAt = entry.trailer.expiresAt, now >= expiresAt {
                    if markingUsed { try? evictFile(name, reason: .expired, in: &state) }
                    return nil
                }
                let isUse = markingUsed && entry.trailer.payloadSize <= readLimit
                return isUse ? state.index.touch(name, at: now) : entry
            }
            guard let snapshot else { return nil }
            guard snapshot.trailer.payloadSize <= readLimit else {
                reportTooLarge(key, size: snapshot.trailer.payloadSize)
                return nil
            }
            let problem: EntryFileProblem
            switch load(name, snapshot) {
            case .entry(let payload, let trailer):
                if trailer.writeSequence == snapshot.trailer.writeSequence, trailer.key == key {
                    return (payload, trailer, snapshot.lastAccess)
                }
                problem = .damaged(
                    trailer.key == key ? "holds another version" : "holds another key"
                )
            case .problem(.unreadable):
                return nil
            case .problem(let found):
                problem = found
            }
            let outcome = state.withLock { state -> String?? in
                guard state.index.entry(name)?.trailer.writeSequence == snapshot.trailer.writeSequence else {
                    return nil  // replaced meanwhile: read again
                }
                if case .wrongLength = problem,
                    (try? folder.status(of: name.fileName))??.st_size == off_t(snapshot.fileLength)
                {
                    return nil  // as long as written again (a renewal's room given back): read again
                }
                // Forgotten even when it cannot be discarded: the next put replaces it.
                forgetEntry(name, in: &state)
                guard problem.isDamage, let done = EntryFile.discard(name.fileName, in: folder) else {
                    return .some(nil)  // deleted behind the store's back
                }
                state.corruptEntriesRemoved += 1
                return done
            }
            switch outcome {
            case nil: continue
            case let done??:
                report(
                    StrataError(
                        .corrupt,
                        "FileDataSource found a damaged entry file \(folder.qualified(name.fileName)) (\(problem)): \(done)"
                    )
                )
                return nil
            case .some(nil): return nil
            }
        }
        return nil
    }

    /// One `openat` (relative to the folder, never following a link), one `pread` of the expected length plus
    /// one byte (to notice a longer file; a read that returns the expected length is not repeated to confirm the
    /// end of the file) and a `close`.
    private func readFile(_ name: EntryName, length: Int) -> FileRead<Data> {
        let descriptor: Int32
        do {
            descriptor = try folder.openFile(name.fileName, EntryFile.readFlags)
        } catch {
            return .problem(EntryFileProblem(opening: error))
        }
        guard let buffer = malloc(length + 1) else {
            _ = close(descriptor)
            return .problem(.unreadable(POSIXCallError(call: "malloc", path: name.fileName, code: ENOMEM)))
        }
        let read = FileDescriptor.read(descriptor, into: buffer, count: length + 1, at: 0, minimum: length)
        let readError = errno
        _ = close(descriptor)
        guard read >= 0 else {
            free(buffer)
            // A folder (EISDIR) or a pipe (ESPIPE) opened where the entry's file was.
            if readError == EISDIR || readError == ESPIPE || readError == EINVAL { return .problem(.notAFile) }
            return .problem(.unreadable(POSIXCallError(call: "pread", path: name.fileName, code: readError)))
        }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: read)
        guard read == length else {
            free(buffer)
            return .problem(
                .wrongLength(read < length ? "truncated (\(read) of \(length) bytes)" : "longer than written")
            )
        }
        guard let trailerLength = EntryTrailer.trailerLength(footer: bytes), trailerLength + 8 <= read,
            let trailer = EntryTrailer(
                bytes: UnsafeRawBufferPointer(rebasing: bytes[(read - 8 - trailerLength)..<(read - 8)])
            ),
            trailer.payloadSize + trailerLength + 8 == read
        else {
            free(buffer)
            return .problem(.damaged("unreadable metadata"))
        }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[0..<trailer.payloadSize])
        guard !configuration.verifiesContent || ContentChecksum.checksum(payload) == trailer.contentHash else {
            free(buffer)
            return .problem(.damaged("checksum mismatch"))
        }
        guard trailer.payloadSize > 0 else {
            free(buffer)
            return .entry(Data(), trailer)
        }
        return .entry(Data(bytesNoCopy: buffer, count: trailer.payloadSize, deallocator: .free), trailer)
    }

    /// One `openat` (relative to the folder, never following a link), an `fstat` and a `pread` of the trailer, then
    /// — when the file still holds the version `expected` names — the data copied to `destination` (from its start:
    /// it is emptied first) in chunks and hashed on the way; a failure of `destination` is the result's error.
    private func copyFile(
        _ name: EntryName,
        expecting expected: EntryIndex.Entry,
        to destination: Int32
    ) -> Result<FileRead<Void>, POSIXCallError> {
        let descriptor: Int32
        do {
            descriptor = try folder.openFile(name.fileName, EntryFile.readFlags)
        } catch {
            return .success(.problem(EntryFileProblem(opening: error)))
        }
        defer { _ = close(descriptor) }
        let trailer: EntryTrailer
        switch EntryFile.readTrailer(descriptor) {
        case .failure(let problem): return .success(.problem(problem))
        case .success(let found):
            guard found.length == expected.fileLength else {
                return .success(
                    .problem(.wrongLength(found.length < expected.fileLength ? "truncated" : "longer than written"))
                )
            }
            trailer = found.trailer
        }
        // Another version (a put since the lookup): the caller tells, before a byte is copied.
        guard trailer.writeSequence == expected.trailer.writeSequence, trailer.key == expected.trailer.key else {
            return .success(.entry((), trailer))
        }
        let copy = "the copy of \(name.fileName)"
        guard FileDescriptor.truncate(destination, to: 0) else { return .failure(.last("ftruncate", copy)) }
        guard lseek(destination, 0, SEEK_SET) == 0 else { return .failure(.last("lseek", copy)) }
        var hasher = ContentChecksum()
        switch Self.streamFile(descriptor, size: trailer.payloadSize, into: &hasher, copyingTo: destination) {
        case .done: break
        case .endedEarly:
            // Shorter than its trailer said a moment ago: as before, no damage the store can prove.
            return .success(.problem(.unreadable(POSIXCallError(call: "pread", path: name.fileName, code: EIO))))
        case .readFailed(let code):
            return .success(.problem(.unreadable(POSIXCallError(call: "pread", path: name.fileName, code: code))))
        case .writeFailed(let code): return .failure(POSIXCallError(call: "write", path: copy, code: code))
        }
        guard !configuration.verifiesContent || hasher.finalize() == trailer.contentHash else {
            return .success(.problem(.damaged("checksum mismatch")))
        }
        return .success(.entry((), trailer))
    }

    /// Tells `diagnostics` that the entry under `key`, of `size` bytes of data, was not read: more than
    /// ``Configuration/maximumReadSize``.
    private func reportTooLarge(_ key: String, size: Int) {
        report(
            StrataError(
                .tooLarge,
                "FileDataSource did not read \(StrataError.quoted(key: key)): its \(size) bytes exceed "
                    + "the store's maximumReadSize of \(configuration.maximumReadSize) (the entry is kept)"
            )
        )
    }
}
