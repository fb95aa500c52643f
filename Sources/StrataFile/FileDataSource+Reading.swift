import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileDataSource {
    private enum FileRead {
        case entry(Data, EntryTrailer)
        case missing
        case unreadable
        case damaged(String)
    }

    /// Reads an entry: a lookup and touch under the lock, then the file read outside it.
    ///
    /// A concurrent put of the same key may replace the file between the two; the write sequence in the
    /// trailer tells, and the read starts again. A damaged file is removed only if the index still names
    /// the entry the read expected, so a file another thread just wrote is never taken for a damaged one.
    func read(_ key: String) -> (data: Data, trailer: EntryTrailer)? {
        let name = EntryName(key: key)
        for _ in 0..<4 {
            let now = configuration.clock.now()
            let snapshot = state.withLock { state -> EntryIndex.Entry? in
                guard let entry = state.index.entry(name), entry.trailer.key.utf8.elementsEqual(key.utf8) else {
                    return nil
                }
                if let expiresAt = entry.trailer.expiresAt, now >= expiresAt {
                    removeFile(name, in: &state)
                    return nil
                }
                return state.index.touch(name, at: now)
            }
            guard let snapshot else { return nil }
            let problem: String?
            switch readFile(name, length: snapshot.fileLength) {
            case .entry(let data, let trailer):
                if trailer.writeSequence == snapshot.trailer.writeSequence, trailer.key.utf8.elementsEqual(key.utf8) {
                    return (data, trailer)
                }
                problem = trailer.key.utf8.elementsEqual(key.utf8) ? "holds another version" : "holds another key"
            case .unreadable:
                return nil
            case .missing:
                problem = nil
            case .damaged(let reason):
                problem = reason
            }
            let outcome = state.withLock { state -> Bool? in
                guard state.index.entry(name)?.trailer.writeSequence == snapshot.trailer.writeSequence else {
                    return nil  // replaced meanwhile: read again
                }
                guard problem != nil else {
                    state.index.remove(name)  // deleted behind the store's back
                    return false
                }
                guard removeFile(name, in: &state) else { return false }
                state.corruptEntriesRemoved += 1
                return true
            }
            switch outcome {
            case nil: continue
            case true?:
                configuration.diagnostics?(
                    "FileDataSource removed the damaged entry file \(folderPath + name.fileName): \(problem ?? "")"
                )
                return nil
            case false?: return nil
            }
        }
        return nil
    }

    /// One `open`, one `read` of the expected length plus one byte (to notice a longer file) and a `close`.
    private func readFile(_ name: EntryName, length: Int) -> FileRead {
        let descriptor = POSIX.open(folderPath + name.fileName, O_RDONLY)
        guard descriptor >= 0 else { return errno == ENOENT ? .missing : .unreadable }
        guard let buffer = malloc(length + 1) else {
            POSIX.close(descriptor)
            return .unreadable
        }
        let read = POSIX.read(descriptor, into: buffer, count: length + 1, at: 0)
        POSIX.close(descriptor)
        guard read >= 0 else {
            free(buffer)
            return .unreadable
        }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: read)
        guard read == length else {
            free(buffer)
            return .damaged(read < length ? "truncated (\(read) of \(length) bytes)" : "longer than written")
        }
        guard let trailerLength = EntryTrailer.trailerLength(footer: bytes), trailerLength + 8 <= read,
            let trailer = EntryTrailer(
                bytes: UnsafeRawBufferPointer(rebasing: bytes[(read - 8 - trailerLength)..<(read - 8)])
            ),
            trailer.payloadSize + trailerLength + 8 == read
        else {
            free(buffer)
            return .damaged("unreadable metadata")
        }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[0..<trailer.payloadSize])
        guard !configuration.verifiesContent || ContentChecksum.checksum(payload) == trailer.contentHash else {
            free(buffer)
            return .damaged("checksum mismatch")
        }
        guard trailer.payloadSize > 0 else {
            free(buffer)
            return .entry(Data(), trailer)
        }
        return .entry(Data(bytesNoCopy: buffer, count: trailer.payloadSize, deallocator: .free), trailer)
    }
}
