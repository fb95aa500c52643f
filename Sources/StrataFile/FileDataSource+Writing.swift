import Foundation
import Strata
import StrataStorage
internal import StrataSupport

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
    ///   - key: Any string but the empty one.
    ///   - options: The entry's lifetime, ETag and Last-Modified.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/tooLarge`` when `data` alone exceeds the size limit,
    ///   ``Strata/StrataError/Code/invalidArgument`` when the attributes exceed
    ///   ``EntryOptions/maxAttributesSize``, ``Strata/StrataError/Code/io`` (with the `POSIXError`) when
    ///   writing fails; the previous entry, if any, and every other entry stay as they were.
    public func setData(_ data: Data, forKey key: String, options: EntryOptions = EntryOptions()) throws {
        try StrataError.checkKey(key)
        try checkSize(data.count)
        try checkAttributes(options)
        let trailer = makeTrailer(key: key, size: data.count, options: options) {
            data.withUnsafeBytes { ContentChecksum.checksum($0) }
        }
        let encoded = trailer.encoded()
        let temporary = try writeTemporary { descriptor in
            data.withUnsafeBytes { payload in
                encoded.withUnsafeBytes {
                    FileDescriptor.writeAll(descriptor, payload) && FileDescriptor.writeAll(descriptor, $0)
                }
            }
        }
        try commit(from: .temporary(temporary), trailer: trailer, fileLength: data.count + encoded.count)
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
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/io`` when the file cannot be read, appended to or moved,
    ///   ``Strata/StrataError/Code/tooLarge`` when it alone exceeds the size limit,
    ///   ``Strata/StrataError/Code/invalidArgument`` when the attributes exceed
    ///   ``EntryOptions/maxAttributesSize``.
    public func move(fileAt url: URL, forKey key: String, options: EntryOptions = EntryOptions()) throws {
        try StrataError.checkKey(key)
        let source = url.path
        // The caller's path: links among its parents are theirs, but the file itself must not be a link (the
        // store would take the link in, not the file).
        let descriptor = open(source, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXCallError.last("open", source).strataError("Opening a file to move") }
        defer { _ = close(descriptor) }
        let size = FileDescriptor.regularFileSize(descriptor)
        guard size >= 0 else { throw StrataError(.invalidArgument, "\(source) is not a regular file") }
        try checkSize(size)
        try checkAttributes(options)
        var failure: StrataError?
        let trailer = makeTrailer(key: key, size: size, options: options) {
            var hasher = ContentChecksum()
            if !Self.hashFile(descriptor, size: size, into: &hasher) {
                failure = POSIXCallError.last("pread", source).strataError("Reading a file to move")
            }
            return hasher.finalize()
        }
        if let failure { throw failure }
        let encoded = trailer.encoded()
        let appended =
            lseek(descriptor, off_t(size), SEEK_SET) >= 0
            && encoded.withUnsafeBytes { FileDescriptor.writeAll(descriptor, $0) }
        if !appended || (configuration.durability == .durable && !FileDescriptor.sync(descriptor)) {
            let error = POSIXCallError.last("write", source).strataError("Appending metadata to a file to move")
            _ = FileDescriptor.truncate(descriptor, to: size)
            throw error
        }
        do {
            try commit(from: .external(source), trailer: trailer, fileLength: size + encoded.count)
        } catch let error as StrataError where (error.underlying as? POSIXError)?.code == .EXDEV {
            try copyAcrossVolumes(source, descriptor: descriptor, trailer: trailer, length: size + encoded.count)
        } catch {
            _ = FileDescriptor.truncate(descriptor, to: size)
            throw error
        }
        changeBroadcaster.publish(.put(key: key))
    }

    /// Removes the entry under `key`; returns whether there was one.
    ///
    /// - Parameter key: The key.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/io`` when the file exists but cannot be removed; the entry then stays.
    @discardableResult
    public func removeData(forKey key: String) throws -> Bool {
        try StrataError.checkKey(key)
        let name = EntryName(key: key)
        let removed = try state.withLock { state in
            guard let entry = state.index.entry(name), entry.trailer.key.utf8.elementsEqual(key.utf8) else {
                return false
            }
            try removeFile(name, in: &state)
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
            let failure = removeFiles(state.index.entries.compactMap { $0?.name }, in: &state)
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
            var failure = removeFiles(state.index.expiredNames(at: now), in: &state)
            failure = failure ?? evict(&state, now: now)
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
}
