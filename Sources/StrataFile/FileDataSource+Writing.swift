import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileDataSource {
    /// Stores `data` under `key`, replacing any entry, then evicts expired and least recently used entries
    /// while the store is over its limits.
    ///
    /// The data and its trailer are written to a temporary file in the store's folder, which is renamed over
    /// the entry (with `fsync` of the file and the folder in ``Durability/durable`` mode).
    ///
    /// - Parameters:
    ///   - data: The bytes to store.
    ///   - key: Any string.
    ///   - options: The entry's lifetime, ETag and Last-Modified.
    /// - Throws: ``Strata/StrataError/Code/tooLarge`` when `data` alone exceeds the size limit,
    ///   ``Strata/StrataError/Code/invalidArgument`` when the attributes exceed
    ///   ``EntryOptions/maxAttributesSize``, ``Strata/StrataError/Code/io`` (with the `POSIXError`) when
    ///   writing fails; the previous entry, if any, and every other entry stay as they were.
    public func setData(_ data: Data, forKey key: String, options: EntryOptions = EntryOptions()) throws {
        try checkSize(data.count)
        try checkAttributes(options)
        let trailer = makeTrailer(key: key, size: data.count, options: options) {
            data.withUnsafeBytes { ContentChecksum.checksum($0) }
        }
        let encoded = trailer.encoded()
        let temporary = folderPath + Self.temporaryPrefix + String(trailer.writeSequence)
        let descriptor = POSIX.open(temporary, O_WRONLY | O_CREAT | O_TRUNC)
        guard descriptor >= 0 else { throw POSIX.ioError("Creating", temporary) }
        let written = data.withUnsafeBytes { payload in
            encoded.withUnsafeBytes { trailerBytes in POSIX.writeAll(descriptor, [payload, trailerBytes]) }
        }
        if !written || (configuration.durability == .durable && !POSIX.sync(descriptor)) {
            let error = POSIX.ioError("Writing", temporary)
            POSIX.close(descriptor)
            _ = POSIX.remove(temporary)
            throw error
        }
        POSIX.close(descriptor)
        try commit(from: temporary, trailer: trailer, fileLength: data.count + encoded.count, ownsSource: true)
        changeBroadcaster.publish(.put(key: key))
    }

    /// Moves a file (a finished download, for example) into the store under `key` without copying its bytes:
    /// the entry's metadata is appended to the file, which is then renamed into the store's folder.
    ///
    /// When the file is on another volume it is copied instead, and the original is removed. On failure the
    /// file is left where it was, as it was.
    ///
    /// - Parameters:
    ///   - url: The file to move; the store takes it over.
    ///   - key: Any string.
    ///   - options: The entry's lifetime, ETag and Last-Modified.
    /// - Throws: ``Strata/StrataError/Code/io`` when the file cannot be read, appended to or moved,
    ///   ``Strata/StrataError/Code/tooLarge`` when it alone exceeds the size limit,
    ///   ``Strata/StrataError/Code/invalidArgument`` when the attributes exceed
    ///   ``EntryOptions/maxAttributesSize``.
    public func move(fileAt url: URL, forKey key: String, options: EntryOptions = EntryOptions()) throws {
        let source = url.path
        let descriptor = POSIX.open(source, O_RDWR)
        guard descriptor >= 0 else { throw POSIX.ioError("Opening", source) }
        defer { POSIX.close(descriptor) }
        let size = POSIX.fileSize(descriptor)
        guard size >= 0 else { throw POSIX.ioError("Reading the size of", source) }
        try checkSize(size)
        try checkAttributes(options)
        var failure: StrataError?
        let trailer = makeTrailer(key: key, size: size, options: options) {
            var hasher = ContentChecksum()
            if !Self.hashFile(descriptor, size: size, into: &hasher) { failure = POSIX.ioError("Reading", source) }
            return hasher.finalize()
        }
        if let failure { throw failure }
        let encoded = trailer.encoded()
        let appended =
            lseek(descriptor, off_t(size), SEEK_SET) >= 0
            && encoded.withUnsafeBytes { POSIX.writeAll(descriptor, [$0]) }
        if !appended || (configuration.durability == .durable && !POSIX.sync(descriptor)) {
            let error = POSIX.ioError("Appending metadata to", source)
            _ = POSIX.truncate(descriptor, to: size)
            throw error
        }
        do {
            try commit(from: source, trailer: trailer, fileLength: size + encoded.count, ownsSource: false)
        } catch let error as StrataError where (error.underlying as? POSIXError)?.code == .EXDEV {
            try copyAcrossVolumes(source, descriptor: descriptor, trailer: trailer, length: size + encoded.count)
        } catch {
            _ = POSIX.truncate(descriptor, to: size)
            throw error
        }
        changeBroadcaster.publish(.put(key: key))
    }

    /// Removes the entry under `key`; returns whether there was one.
    ///
    /// - Parameter key: The key.
    /// - Throws: ``Strata/StrataError/Code/io`` when the file exists but cannot be removed; the entry then
    ///   stays.
    @discardableResult
    public func removeData(forKey key: String) throws -> Bool {
        let name = EntryName(key: key)
        let removed = try state.withLock { state in
            guard let entry = state.index.entry(name), entry.trailer.key.utf8.elementsEqual(key.utf8) else {
                return false
            }
            guard removeFile(name, in: &state) else { throw POSIX.ioError("Removing", folderPath + name.fileName) }
            return true
        }
        if removed { changeBroadcaster.publish(.delete(key: key)) }
        return removed
    }

    /// Removes every entry; files that are not Strata entries stay.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when some files cannot be removed; their entries stay.
    public func removeAll() throws {
        defer { changeBroadcaster.publish(.deleteAll) }
        try state.withLock { state in
            var failure: StrataError?
            for case let entry? in state.index.entries where !removeFile(entry.name, in: &state) {
                failure = failure ?? POSIX.ioError("Removing", folderPath + entry.name.fileName)
            }
            saveJournal(state.index)
            if let failure { throw failure }
        }
    }

    /// Removes expired entries, then least recently used ones until the store is within both limits, and
    /// saves the last-access dates: what an app calls when it goes to the background or terminates.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when an entry's file cannot be removed.
    public func cleanup() throws {
        let now = configuration.clock.now()
        try state.withLock { state in
            var failure: StrataError?
            for name in state.index.expiredNames(at: now) where !removeFile(name, in: &state) {
                failure = failure ?? POSIX.ioError("Removing", folderPath + name.fileName)
            }
            if !evict(&state, now: now) {
                failure = failure ?? POSIX.ioError("Evicting from", folderPath)
            }
            saveJournal(state.index)
            if let failure { throw failure }
        }
    }

    /// Saves the last-access dates and the recency order now, rather than at the next ``cleanup()`` or when
    /// the store is released.
    public func flush() {
        state.withLock { saveJournal($0.index) }
    }

    // MARK: - Internals

    private func checkSize(_ size: Int) throws {
        if let maxSize = configuration.maxSize, size > maxSize {
            throw StrataError(.tooLarge, "\(size) bytes exceed the store's limit of \(maxSize)")
        }
    }

    private func checkAttributes(_ options: EntryOptions) throws {
        if let attributes = options.attributes, attributes.count > EntryOptions.maxAttributesSize {
            throw StrataError(
                .invalidArgument,
                "\(attributes.count) bytes of attributes exceed the limit of \(EntryOptions.maxAttributesSize)"
            )
        }
    }

    private func makeTrailer(
        key: String,
        size: Int,
        options: EntryOptions,
        hash: () -> UInt64
    ) -> EntryTrailer {
        let now = configuration.clock.now()
        let lifetime = options.timeToLive ?? configuration.lifetime.duration
        return EntryTrailer(
            key: key,
            eTag: options.eTag,
            lastModified: options.lastModified,
            payloadSize: size,
            contentHash: hash(),
            writeSequence: state.withLock { $0.index.nextSequence() },
            created: now,
            expiresAt: lifetime.map { now.addingTimeInterval($0.timeInterval) },
            attributes: options.attributes
        )
    }

    /// Renames a finished file over the entry and records it, unless a later put of the key already has.
    private func commit(from source: String, trailer: EntryTrailer, fileLength: Int, ownsSource: Bool) throws {
        let name = EntryName(key: trailer.key)
        let destination = folderPath + name.fileName
        let now = configuration.clock.now()
        try state.withLock { state in
            if let existing = state.index.entry(name), existing.trailer.writeSequence > trailer.writeSequence {
                _ = POSIX.remove(source)  // a later put of this key won; this one is overwritten at once
                return
            }
            guard POSIX.move(source, to: destination) else {
                let error = POSIX.ioError("Renaming \(source) to", destination)
                if ownsSource { _ = POSIX.remove(source) }
                throw error
            }
            var entry = EntryIndex.Entry(
                name: name,
                trailer: trailer,
                lastAccess: now,
                accessSequence: 0,
                fileLength: fileLength
            )
            entry.accessSequence = state.index.nextSequence()
            state.index.insert(entry)
            let synced = configuration.durability == .atomic || POSIX.syncFolder(folderPath)
            _ = evict(&state, now: now)
            if !synced { throw POSIX.ioError("Flushing the folder", folderPath) }
        }
    }

    private func copyAcrossVolumes(_ source: String, descriptor: Int32, trailer: EntryTrailer, length: Int) throws {
        let temporary = folderPath + Self.temporaryPrefix + String(trailer.writeSequence)
        let output = POSIX.open(temporary, O_WRONLY | O_CREAT | O_TRUNC)
        guard output >= 0 else {
            _ = POSIX.truncate(descriptor, to: trailer.payloadSize)
            throw POSIX.ioError("Creating", temporary)
        }
        var copied = true
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while copied, offset < length {
            let count = buffer.withUnsafeMutableBytes { chunk -> Int in
                guard let base = chunk.baseAddress else { return -1 }
                return POSIX.read(descriptor, into: base, count: min(chunk.count, length - offset), at: offset)
            }
            copied = count > 0 && buffer.withUnsafeBytes { POSIX.writeAll(output, [.init(rebasing: $0[0..<count])]) }
            offset += max(count, 0)
        }
        if !copied || (configuration.durability == .durable && !POSIX.sync(output)) {
            let error = POSIX.ioError("Copying \(source) to", temporary)
            POSIX.close(output)
            _ = POSIX.remove(temporary)
            _ = POSIX.truncate(descriptor, to: trailer.payloadSize)
            throw error
        }
        POSIX.close(output)
        do {
            try commit(from: temporary, trailer: trailer, fileLength: length, ownsSource: true)
        } catch {
            _ = POSIX.truncate(descriptor, to: trailer.payloadSize)
            throw error
        }
        _ = POSIX.remove(source)
    }

    static func hashFile(_ descriptor: Int32, size: Int, into hasher: inout ContentChecksum) -> Bool {
        var buffer = [UInt8](repeating: 0, count: min(max(size, 1), 1 << 20))
        var offset = 0
        while offset < size {
            let count = buffer.withUnsafeMutableBytes { chunk -> Int in
                guard let base = chunk.baseAddress else { return -1 }
                return POSIX.read(descriptor, into: base, count: min(chunk.count, size - offset), at: offset)
            }
            guard count > 0 else { return false }
            buffer.withUnsafeBytes { hasher.update(.init(rebasing: $0[0..<count])) }
            offset += count
        }
        return true
    }

    /// Unlinks an entry's file and forgets the entry; a missing file counts as removed. Returns false (with
    /// `errno` set) when the file exists and cannot be removed: the entry then stays, as the file does.
    @discardableResult
    func removeFile(_ name: EntryName, in state: inout State) -> Bool {
        guard POSIX.remove(folderPath + name.fileName) else { return false }
        state.index.remove(name)
        return true
    }

    /// Removes expired entries, then the least recently used, while over a limit; false when a file could
    /// not be removed (eviction then stops rather than spin).
    private func evict(_ state: inout State, now: Date) -> Bool {
        let maxCount = configuration.maxCount ?? .max
        let maxSize = configuration.maxSize ?? .max
        func overLimits() -> Bool { state.index.count > maxCount || state.index.totalSize > maxSize }
        guard overLimits() else { return true }
        for name in state.index.expiredNames(at: now) where !removeFile(name, in: &state) { return false }
        while overLimits(), let oldest = state.index.leastRecentlyUsed {
            guard removeFile(oldest.name, in: &state) else { return false }
        }
        return true
    }

    /// Writes the access journal (temporary file and rename); failures are ignored, as the journal only
    /// refines the recency order.
    func saveJournal(_ index: EntryIndex) {
        let bytes = AccessJournal.encode(index.entriesByRecency)
        let temporary = folderPath + Self.temporaryPrefix + "journal"
        let descriptor = POSIX.open(temporary, O_WRONLY | O_CREAT | O_TRUNC)
        guard descriptor >= 0 else { return }
        let written = bytes.withUnsafeBytes { POSIX.writeAll(descriptor, [$0]) }
        POSIX.close(descriptor)
        guard written, POSIX.move(temporary, to: folderPath + AccessJournal.fileName) else {
            _ = POSIX.remove(temporary)
            return
        }
    }
}
