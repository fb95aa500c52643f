import Foundation
import Strata
import StrataStorage
internal import StrataSupport

extension FileDataSource {
    /// Stores `data` under `key`, replacing any entry, then evicts expired and least recently used entries
    /// while the store is over its limits.
    ///
    /// The data and its trailer are written to a temporary file in the store's folder, which is renamed over
    /// the entry (with `fsync` of the file and the folder in ``Strata/StoreDurability/durable`` mode).
    ///
    /// - Parameters:
    ///   - data: The bytes to store.
    ///   - key: Any string but the empty one.
    ///   - options: The entry's lifetime, ETag and Last-Modified.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/tooLarge`` when `data` alone exceeds the size limit or
    ///   ``Configuration/maximumReadSize``, or its key and metadata ``Configuration/maximumMetadataSize``,
    ///   ``Strata/StrataError/Code/invalidArgument`` when the attributes exceed ``EntryOptions/maxAttributesSize``,
    ///   ``Strata/StrataError/Code/io`` (with the `POSIXError`) when writing fails; the previous entry, if any, and
    ///   every other entry stay as they were.
    public func setValue(_ data: Data, forKey key: String, options: EntryOptions = EntryOptions()) throws {
        let now = configuration.clock.now()
        let lifetime = options.timeToLive ?? configuration.timeToLive
        try write(
            data,
            forKey: key,
            created: now,
            expiresAt: lifetime.map { now.addingTimeInterval($0.timeInterval) },
            options: options
        )
    }

    /// Stores `data` under `key` with its metadata: the stored date (`nil`: now), the expiry (`nil`: the
    /// configuration's time to live from now, ``Strata/EntryMetadata/expiry(timeToLive:now:)``), the freshness date and
    /// the validators.
    ///
    /// - Parameters:
    ///   - data: The bytes to store.
    ///   - key: Any string but the empty one.
    ///   - metadata: The entry's metadata.
    /// - Throws: As ``setValue(_:forKey:options:)``, and ``Strata/StrataError/Code/invalidArgument`` for a date in
    ///   `metadata` that is not a finite time (NaN, infinity) or a tag a store cannot keep.
    public func setValue(_ data: Data, forKey key: String, metadata: EntryMetadata) throws {
        try StrataError.checkMetadata(metadata)
        let now = configuration.clock.now()
        try write(
            data,
            forKey: key,
            created: metadata.storedAt ?? now,
            expiresAt: metadata.expiry(timeToLive: configuration.timeToLive, now: now),
            freshUntil: metadata.freshUntil,
            tags: metadata.tags.sorted(),
            forbidsServingStale: metadata.forbidsServingStale,
            options: EntryOptions(eTag: metadata.eTag, lastModified: metadata.lastModified)
        )
    }

    /// Writes an entry's file, commits it, and announces the put once it is in the store (even when a later
    /// step, such as flushing the folder, fails).
    private func write(
        _ data: Data,
        forKey key: String,
        created: Date,
        expiresAt: Date?,
        freshUntil: Date? = nil,
        tags: [String] = [],
        forbidsServingStale: Bool = false,
        options: EntryOptions
    ) throws {
        try StrataError.checkKey(key)
        try checkSize(data.count)
        // What a put stores, a read gives back: a moved file alone may be larger (a download handed out by copy).
        guard data.count <= configuration.maximumReadSize else {
            throw StrataError(
                .tooLarge,
                "\(data.count) bytes exceed the store's maximumReadSize of \(configuration.maximumReadSize)"
            )
        }
        try checkAttributes(options)
        // A stored list answer must not outlive an entry that expires before it.
        storedListAnswer.noteEntry(forKey: key, expiringAt: expiresAt)
        var trailer = makeTrailer(key: key, size: data.count, created: created, expiresAt: expiresAt, options: options)
        {
            data.withUnsafeBytes { ContentChecksum.checksum($0) }
        }
        trailer.freshUntil = freshUntil
        trailer.tags = tags
        trailer.forbidsServingStale = forbidsServingStale
        let encoded = try encode(trailer)
        let temporary = try writeTemporary { descriptor in
            data.withUnsafeBytes { payload in
                encoded.withUnsafeBytes { FileDescriptor.writeAll(descriptor, payload, $0) }
            }
        }
        try commitAnnouncing(
            from: .temporary(temporary.name),
            trailer: trailer,
            fileLength: data.count + encoded.count,
            stamp: temporary.stamp
        )
    }

    /// Commits a file and announces the put when the entry is in the store: after a success, or after a failure
    /// that came once the file was in place.
    private func commitAnnouncing(
        from source: CommitSource,
        trailer: EntryTrailer,
        fileLength: Int,
        stamp: FileStamp?
    ) throws {
        do {
            try commit(from: source, trailer: trailer, fileLength: fileLength, stamp: stamp)
        } catch {
            if isCommitted(trailer) { changeBroadcaster.publish(.put(key: trailer.key)) }
            throw error
        }
        changeBroadcaster.publish(.put(key: trailer.key))
    }

    /// ``copyIn(_:descriptor:trailer:encodedTrailer:)``, then announces the put when it is in the index (even when
    /// a step after the commit failed).
    private func copyInAnnouncing(
        _ source: String,
        descriptor: Int32,
        trailer: EntryTrailer,
        encodedTrailer: [UInt8]
    ) throws {
        do {
            try copyIn(source, descriptor: descriptor, trailer: trailer, encodedTrailer: encodedTrailer)
        } catch {
            if isCommitted(trailer) { changeBroadcaster.publish(.put(key: trailer.key)) }
            throw error
        }
        changeBroadcaster.publish(.put(key: trailer.key))
    }

    /// Whether the index holds the entry `trailer` describes (renewed since or not).
    private func isCommitted(_ trailer: EntryTrailer) -> Bool {
        let name = EntryName(key: trailer.key)
        return state.withLock { $0.index.entry(name)?.putSequence == trailer.writeSequence }
    }

    /// Moves a file (a finished download, for example) into the store under `key` without copying its bytes:
    /// the entry's metadata is appended to the file, which is then renamed into the store's folder.
    ///
    /// When the file is on another volume, or has another hard link (whose file appending would change), its bytes
    /// are copied in instead and the caller's name for it removed; another name keeps the file as it was. On
    /// failure the file is left where it was, as it was. The file moved in is the one opened: when the path was made
    /// to name another file meanwhile, that file is moved back (or, when something has taken the path since, kept in
    /// the store's folder under a name the store never reads or deletes) and the call fails with
    /// ``Strata/StrataError/Code/io``.
    ///
    /// - Parameters:
    ///   - url: The file to move; the store takes it over.
    ///   - key: Any string.
    ///   - options: The entry's lifetime, ETag and Last-Modified.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/io`` when the file cannot be read, appended to or moved,
    ///   ``Strata/StrataError/Code/tooLarge`` when it alone exceeds the size limit or its key and metadata
    ///   ``Configuration/maximumMetadataSize``,
    ///   ``Strata/StrataError/Code/invalidArgument`` when the attributes exceed
    ///   ``EntryOptions/maxAttributesSize``.
    public func move(fileAt url: URL, forKey key: String, options: EntryOptions = EntryOptions()) throws {
        try StrataError.checkKey(key)
        let source = url.path
        // The caller's path: links among its parents are theirs, but the file itself must not be a link (the
        // store would take the link in, not the file). Opened without blocking, so that a device or a pipe at the
        // path cannot hold the calling thread before it is refused as not a regular file.
        let descriptor = FileDescriptor.retryingInterrupts {
            open(source, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        }
        guard descriptor >= 0 else { throw POSIXCallError.last("open", source).strataError("Opening a file to move") }
        defer { _ = close(descriptor) }
        let size = FileDescriptor.regularFileSize(descriptor)
        guard size >= 0 else { throw StrataError(.invalidArgument, "\(source) is not a regular file") }
        try checkSize(size)
        try checkAttributes(options)
        var failure: StrataError?
        let now = configuration.clock.now()
        let lifetime = options.timeToLive ?? configuration.timeToLive
        let expiresAt = lifetime.map { now.addingTimeInterval($0.timeInterval) }
        storedListAnswer.noteEntry(forKey: key, expiringAt: expiresAt)
        let trailer = makeTrailer(key: key, size: size, created: now, expiresAt: expiresAt, options: options) {
            var hasher = ContentChecksum()
            if !Self.hashFile(descriptor, size: size, into: &hasher) {
                failure = POSIXCallError.last("pread", source).strataError("Reading a file to move")
            }
            return hasher.finalize()
        }
        if let failure { throw failure }
        let encoded = try encode(trailer)
        if !FileDescriptor.isSoleRegularFile(descriptor) {
            try copyInAnnouncing(source, descriptor: descriptor, trailer: trailer, encodedTrailer: encoded)
            return
        }
        let appended =
            lseek(descriptor, off_t(size), SEEK_SET) >= 0
            && encoded.withUnsafeBytes { FileDescriptor.writeAll(descriptor, $0) }
        if !appended || (configuration.durability == .durable && !FileDescriptor.sync(descriptor)) {
            let error = POSIXCallError.last("write", source).strataError("Appending metadata to a file to move")
            _ = FileDescriptor.truncate(descriptor, to: size)
            throw error
        }
        let stamp = FileStamp(openFile: descriptor)
        let taken: TakenInFile
        do {
            taken = try folder.takeIn(source, expecting: descriptor, temporaryPrefix: Self.temporaryPrefix)
        } catch  where error.code == EXDEV {
            _ = FileDescriptor.truncate(descriptor, to: size)
            try copyInAnnouncing(source, descriptor: descriptor, trailer: trailer, encodedTrailer: encoded)
            return
        } catch {
            _ = FileDescriptor.truncate(descriptor, to: size)
            throw error.strataError("Moving a file into the store")
        }
        guard case .taken(let temporary) = taken else {
            _ = FileDescriptor.truncate(descriptor, to: size)
            throw Self.replacedWhileMoving(source, taken)
        }
        do {
            try commit(
                from: .takenIn(temporary, from: source),
                trailer: trailer,
                fileLength: size + encoded.count,
                stamp: stamp
            )
        } catch {
            if isCommitted(trailer) {
                changeBroadcaster.publish(.put(key: key))
            } else {
                _ = FileDescriptor.truncate(descriptor, to: size)
            }
            throw error
        }
        changeBroadcaster.publish(.put(key: key))
    }

    /// The error of a move whose path was made to name another file before the store took it in.
    private static func replacedWhileMoving(_ source: String, _ taken: TakenInFile) -> StrataError {
        var whereItIs = "was put back there"
        if case .replaced(keptAs: let kept?) = taken {
            whereItIs = "is kept in the store's folder as \(kept), never read or deleted"
        }
        return StrataError(
            .io,
            "\(source) was replaced by another file while it was being moved into the store: nothing was stored, "
                + "the file opened was left as it was, and the file found at the path \(whereItIs)"
        )
    }

    /// Removes the entry under `key`; returns whether there was one.
    ///
    /// In a ``StoreDurability/durable`` store the removal is flushed before the call returns: a removed entry
    /// does not come back after a power cut. A file at the key's entry name that the store left out when it opened
    /// (it could not be read then) goes too, by the rule of ``removeAll()``, and counts as an entry: a later open
    /// would take it in.
    ///
    /// - Parameter key: The key.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/io`` when the file exists but cannot be removed; the entry then stays.
    @discardableResult
    public func removeValue(forKey key: String) throws -> Bool {
        try removeValue(forKey: key, clearingUnindexedFile: true) { _ in true }
    }

    /// Removes the entry under `key` only while it is tagged `tag` (its trailer says so, under the lock), and
    /// returns whether it did: what `delete(TagQuery(tag))` removes with, so that a write since the listing is kept.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - tag: The tag the entry must still carry.
    /// - Throws: As ``removeValue(forKey:)``.
    @discardableResult
    public func removeValue(forKey key: String, ifTagged tag: String) throws -> Bool {
        try removeValue(forKey: key) { $0.tags.contains(tag) }
    }

    /// Removes the entry under `key` if it is still the one `info` describes — the same bytes, written or renewed
    /// at the same time, with the same attributes — and returns whether it did: for a caller that decided from
    /// `info` (that the entry had expired, say) and must not remove a write or a renewal made since.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - info: What the caller read of the entry (``info(forKey:)``).
    /// - Throws: As ``removeValue(forKey:)``.
    package func removeValue(forKey key: String, ifStill info: FileEntryInfo) throws -> Bool {
        try removeValue(forKey: key) { trailer in
            trailer.contentHash == info.contentHash && trailer.created == info.created
                && trailer.attributes == info.attributes
        }
    }

    /// Removes the entry under `key` when `isRemoved` accepts its trailer, under the lock; flushed in a durable
    /// store, announced.
    ///
    /// - Parameter clearingUnindexedFile: Whether a file at the key's entry name that the index lacks (one that could
    ///   not be read when the store opened) is cleared as ``removeFile(_:in:)`` clears one (removed when sealed, set
    ///   aside otherwise), so that a later open does not take the removed key back in.
    private func removeValue(
        forKey key: String,
        clearingUnindexedFile: Bool = false,
        if isRemoved: (EntryTrailer) -> Bool
    ) throws -> Bool {
        try StrataError.checkKey(key)
        let name = EntryName(key: key)
        let removed = try withState { state in
            guard let entry = state.index.entry(name) else {
                guard clearingUnindexedFile, try removeFile(name, in: &state) else { return false }
                try flushRemovals()
                return true
            }
            guard entry.trailer.key == key, isRemoved(entry.trailer) else { return false }
            try removeFile(name, in: &state)
            try flushRemovals()
            return true
        }
        if removed { changeBroadcaster.publish(.delete(key: key)) }
        return removed
    }

    /// Removes every entry and forgets the stored list answer; files that are not Strata entries stay.
    ///
    /// Files at entry names the index does not hold (one that could not be read when the store opened, one put there
    /// since) go too, by the rule of a damaged entry: removed when their sealed trailer proves the store wrote them,
    /// set aside otherwise, so that none comes back as an entry at a later open.
    ///
    /// Announced when every entry, or some, went; flushed before the call returns in a
    /// ``StoreDurability/durable`` store.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when some files cannot be removed; their entries stay.
    public func removeAll() throws {
        let (failure, removedAny) = withState { state -> (StrataError?, Bool) in
            let names = state.index.entries.compactMap { $0?.name }
            var failure = removeFiles(names, in: &state)
            var swept = false
            try? folder.forEachItem { fileName, _ in
                guard let name = EntryName(fileName: fileName), state.index.entry(name) == nil else { return }
                let disposal = try? EntryFile.dispose(fileName, in: folder)
                if let disposal, disposal != .absent { swept = true }
            }
            let removed = names.count - state.index.count
            if removed > 0 || swept {
                do throws(StrataError) { try flushRemovals() } catch { failure = failure ?? error }
            }
            if removed > 0, let observer = configuration.evictionObserver {
                observer.storeDidEvict(StoreEviction(reason: .purged, key: nil, count: removed, usage: state.usage))
            }
            saveJournal(&state)
            return (failure, state.index.count < names.count)
        }
        storedListAnswer.forget()
        if failure == nil || removedAny { changeBroadcaster.publish(.deleteAll) }
        if let failure { throw failure }
    }

    /// Removes expired entries, then least recently used ones until the store is within both limits, and
    /// saves the last-access dates: what an app calls when it goes to the background or terminates.
    ///
    /// - Returns: How many expired entries were removed.
    /// - Throws: ``Strata/StrataError/Code/io`` when an entry's file cannot be removed.
    @discardableResult
    public func removeExpired() throws -> Int {
        let now = configuration.clock.now()
        return try withState { state in
            let expired = state.index.expiredNames(at: now)
            var failure = removeFiles(expired, reason: .expired, in: &state)
            let removed = expired.filter { state.index.entry($0) == nil }.count
            // Evicted though an expired file could not be removed; the first failure is the one thrown.
            let evicted = evict(&state, now: now)
            failure = failure ?? evicted
            saveJournal(&state)
            if let failure { throw failure }
            return removed
        }
    }

    /// Saves the last-access dates and the recency order now, rather than at the next ``removeExpired()`` or when
    /// the store is released; writes nothing when they did not change since they were last saved.
    ///
    /// Releasing a store saves them too, on the thread that lets go of the last reference, rewriting a file of one
    /// line per entry. Flush from a background task first, and a store released on the main thread right after
    /// (nothing read or written in between) writes nothing as it goes.
    public func flush() {
        state.withLock { saveJournal(&$0) }
    }

    // MARK: - Internals

    /// Flushes the folder after removals a caller asked for, in a ``StoreDurability/durable`` store: removed
    /// entries do not come back after a power cut. (Evictions are not flushed: an evicted entry that came back
    /// would only hold the store over its limit until the next write.)
    private func flushRemovals() throws(StrataError) {
        guard configuration.durability == .durable else { return }
        do throws(POSIXCallError) {
            try folder.sync()
        } catch {
            throw error.strataError("Flushing the store folder after a removal")
        }
    }

    private func checkSize(_ size: Int) throws {
        if let maxSize = configuration.maxSize, size > maxSize {
            throw StrataError(.tooLarge, "\(size) bytes exceed the store's limit of \(maxSize)")
        }
        if size > EntryTrailer.maximumPayloadSize {
            throw StrataError(.tooLarge, "\(size) bytes exceed an entry's limit of \(EntryTrailer.maximumPayloadSize)")
        }
    }

    /// The bytes of `trailer`, refused when they alone take more than ``Configuration/maximumMetadataSize``.
    func encode(_ trailer: EntryTrailer) throws(StrataError) -> [UInt8] {
        let encoded = try trailer.encoded()
        guard encoded.count <= configuration.maximumMetadataSize else {
            throw StrataError(
                .tooLarge,
                "The key and metadata of \(trailer.key.prefix(64))… take \(encoded.count) bytes, more than the store's "
                    + "maximumMetadataSize of \(configuration.maximumMetadataSize)"
            )
        }
        return encoded
    }

    private func checkAttributes(_ options: EntryOptions) throws {
        try EntryOptions.checkAttributes(options.attributes)
    }

    private func makeTrailer(
        key: String,
        size: Int,
        created: Date,
        expiresAt: Date?,
        options: EntryOptions,
        hash: () -> UInt64
    ) -> EntryTrailer {
        EntryTrailer(
            key: key,
            eTag: options.eTag,
            lastModified: options.lastModified,
            payloadSize: size,
            contentHash: hash(),
            writeSequence: state.withLock { $0.index.nextSequence() },
            created: created,
            expiresAt: expiresAt,
            attributes: options.attributes
        )
    }
}
