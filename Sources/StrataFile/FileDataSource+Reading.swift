import Foundation
import Strata
import StrataStorage
internal import StrataSupport

extension FileDataSource {
    private enum FileRead {
        case entry(Data, EntryTrailer)
        case problem(EntryFileProblem)
    }

    /// Reads an entry: a lookup and touch under the lock, then the file read outside it.
    ///
    /// A concurrent put of the same key may replace the file between the two; the write sequence in the
    /// trailer tells, and the read starts again. A damaged file is removed only if the index still names
    /// the entry the read expected, so a file another thread just wrote is never taken for a damaged one.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - markingUsed: Whether the read is a use: it marks the entry most recently used and evicts it when it
    ///     has expired. Without it the read changes nothing in the store but a damaged file's removal.
    func read(_ key: String, markingUsed: Bool = true) -> (data: Data, trailer: EntryTrailer)? {
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
                return markingUsed ? state.index.touch(name, at: now) : entry
            }
            guard let snapshot else { return nil }
            let problem: EntryFileProblem
            switch readFile(name, length: snapshot.fileLength) {
            case .entry(let data, let trailer):
                if trailer.writeSequence == snapshot.trailer.writeSequence, trailer.key == key {
                    return (data, trailer)
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
                // Forgotten even when it cannot be discarded: the next put replaces it.
                state.index.remove(name)
                guard problem.isDamage, let done = EntryFile.discard(name.fileName, in: folder) else {
                    return .some(nil)  // deleted behind the store's back
                }
                state.corruptEntriesRemoved += 1
                return done
            }
            switch outcome {
            case nil: continue
            case let done??:
                configuration.diagnostics?(
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
    private func readFile(_ name: EntryName, length: Int) -> FileRead {
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
                .damaged(read < length ? "truncated (\(read) of \(length) bytes)" : "longer than written")
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
}
