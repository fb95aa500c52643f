import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileDataSource {
    /// The prefix of the store's temporary files; leftovers of a crash are removed when the store opens.
    static let temporaryPrefix = ".strata-tmp-"

    /// Reads the trailer of every entry file in the folder (one `fstat` and one `pread` each), removes
    /// damaged entries and leftover temporary files, applies the access journal and builds the index.
    static func load(
        folder: String,
        diagnostics: (@Sendable (String) -> Void)?
    ) -> (index: EntryIndex, corrupt: Int) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var loaded: [EntryIndex.Entry] = []
        var corrupt = 0
        for fileName in names {
            if fileName.hasPrefix(temporaryPrefix) {
                _ = POSIX.remove(folder + fileName)
                continue
            }
            guard let name = EntryName(fileName: fileName) else { continue }
            let path = folder + fileName
            switch readTrailer(path: path) {
            case .some(let (trailer, length)) where EntryName(key: trailer.key) == name:
                let entry = EntryIndex.Entry(
                    name: name,
                    trailer: trailer,
                    lastAccess: trailer.created,
                    accessSequence: trailer.writeSequence,
                    fileLength: length
                )
                loaded.append(entry)
            default:
                if POSIX.remove(path) {
                    corrupt += 1
                    diagnostics?("FileDataSource removed the damaged entry file \(path) when opening the store")
                }
            }
        }
        let journal = (try? Data(contentsOf: URL(fileURLWithPath: folder + AccessJournal.fileName))).map {
            AccessJournal.decode($0)
        }
        var index = EntryIndex()
        for position in loaded.indices {
            let entry = loaded[position]
            index.observe(sequence: entry.trailer.writeSequence)
            guard let record = journal?[entry.name] else { continue }
            index.observe(sequence: record.accessSequence)
            if record.accessSequence > entry.trailer.writeSequence {
                loaded[position].accessSequence = record.accessSequence
                loaded[position].lastAccess = record.lastAccess
            }
        }
        // Least recently used first: each insert becomes the most recently used.
        for entry in loaded.sorted(by: { $0.accessSequence < $1.accessSequence }) {
            index.insert(entry)
        }
        return (index, corrupt)
    }

    /// The trailer of an entry file and the file's length; `nil` when the file is not a whole entry.
    static func readTrailer(path: String) -> (EntryTrailer, Int)? {
        let descriptor = POSIX.open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { POSIX.close(descriptor) }
        let length = POSIX.fileSize(descriptor)
        let minimum = EntryTrailer.minimumLength
        guard length >= minimum else { return nil }
        var tailLength = min(length, 4096)
        var tail = [UInt8](repeating: 0, count: tailLength)
        var read = tail.withUnsafeMutableBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return -1 }
            return POSIX.read(descriptor, into: base, count: tailLength, at: length - tailLength)
        }
        guard read == tailLength else { return nil }
        guard let trailerLength = tail.withUnsafeBytes({ EntryTrailer.trailerLength(footer: $0) }),
            trailerLength + 8 <= length
        else { return nil }
        if trailerLength + 8 > tailLength {
            tailLength = trailerLength + 8
            tail = [UInt8](repeating: 0, count: tailLength)
            read = tail.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return POSIX.read(descriptor, into: base, count: tailLength, at: length - tailLength)
            }
            guard read == tailLength else { return nil }
        }
        let trailer = tail.withUnsafeBytes { bytes in
            EntryTrailer(
                bytes: UnsafeRawBufferPointer(rebasing: bytes[(tailLength - 8 - trailerLength)..<(tailLength - 8)])
            )
        }
        guard let trailer, trailer.payloadSize + trailerLength + 8 == length else { return nil }
        return (trailer, length)
    }
}
