import Foundation
import Strata
import StrataStorage

extension FileDataSource {
    /// Replaces the metadata of the entry under `key` (expired or not) by rewriting only its trailer, never its
    /// data: what a `304` or a lifetime extension costs is one `pwrite` of about a hundred bytes and an
    /// `ftruncate`. Returns whether there was an entry to renew: `false` too when its file was deleted behind the
    /// store's back (the entry is then forgotten, as a read forgets it).
    ///
    /// The entry's attributes and content checksum stay; the stored date (`nil`: now), expiry (`nil`: the
    /// configuration's time to live from now), freshness date and validators are replaced. The
    /// trailer is rewritten in the current layout, so an entry written by an older version grows by the fields
    /// it lacked; the file is cut or extended to the new trailer's end. The file is written in
    /// place, or replaced, only when it is the store's own: a regular file with one link, of the length the store
    /// wrote, with the stamp the index keeps of it (device, inode, size, modification time), so a hard link or a
    /// user's file of the same length planted at the entry's name is never written through nor replaced; it is set
    /// aside, and the entry is gone. A renewal that fails part-way leaves a
    /// damaged trailer, so the entry is forgotten and its file discarded: a miss, never a torn read. A renewal
    /// whose trailer is shorter is not written in place (until the file is cut it would end in the old footer
    /// over a torn trailer, an entry a crash there would lose): the data and the new trailer are written to a new
    /// file renamed over the entry, so the name holds the old entry or the new one at every moment, and one that
    /// fails before the rename leaves the entry as it was. A longer trailer makes its room past the file's end
    /// before the old one is touched, so a full disk leaves the entry as it was too. A conditional read's renewal
    /// renews only the version it confirmed: an entry whose validators are no longer its (another version written
    /// since) is left as it is, checked under the lock the renewal takes
    /// (``Strata/EntryMetadata/renews(entryWithETag:lastModified:)``).
    ///
    /// - Parameters:
    ///   - metadata: The new metadata.
    ///   - key: The key.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key or a date in `metadata` that is not
    ///   a finite time, ``Strata/StrataError/Code/io`` when the file cannot be rewritten (the entry is then gone,
    ///   unless the failure left its file as it was: no room to grow it, a new file not renamed).
    @discardableResult
    public func renewMetadata(_ metadata: EntryMetadata, forKey key: String) throws -> Bool {
        try renew(metadata, attributes: nil, ifContentHash: nil, forKey: key)
    }

    /// Replaces the metadata and the attributes of the entry under `key`, when it still holds the data whose
    /// checksum is `contentHash`, by rewriting only its trailer, as ``renewMetadata(_:forKey:)`` does.
    ///
    /// What a cache renews after a `304` or a lifetime extension: the renewal names the version of the data it
    /// was computed for, so it never lands on a newer version written in between. Returns whether an entry was
    /// renewed: `false` when there is none, or when it holds other data.
    ///
    /// - Parameters:
    ///   - metadata: The new metadata.
    ///   - attributes: The new attributes (``EntryOptions/attributes``); `nil` removes them.
    ///   - contentHash: The ``FileEntryInfo/contentHash`` of the version to renew.
    ///   - key: The key.
    /// - Throws: As ``renewMetadata(_:forKey:)``, and ``Strata/StrataError/Code/invalidArgument`` for attributes over
    ///   ``FileDataSource/EntryOptions/maxAttributesSize``.
    @discardableResult
    public func renewMetadata(
        _ metadata: EntryMetadata,
        attributes: Data?,
        ifContentHash contentHash: UInt64,
        forKey key: String
    ) throws -> Bool {
        try EntryOptions.checkAttributes(attributes)
        return try renew(metadata, attributes: .some(attributes), ifContentHash: contentHash, forKey: key)
    }

    /// Replaces the metadata and the attributes of the entry under `key`, as
    /// ``renewMetadata(_:attributes:ifContentHash:forKey:)`` does, when it still holds the data hashed `contentHash`
    /// *and* the attributes `expected`: a renewal computed from a read (a record of a cache's own) never lands on an
    /// entry whose attributes were replaced since, by a write of the same bytes or another renewal. Checked under the
    /// lock the renewal takes, so nothing lands between the check and the write.
    ///
    /// - Parameters:
    ///   - metadata: The new metadata.
    ///   - attributes: The new attributes; `nil` removes them.
    ///   - contentHash: The ``FileEntryInfo/contentHash`` of the version to renew.
    ///   - expected: The ``FileEntryInfo/attributes`` the entry must still have.
    ///   - key: The key.
    /// - Returns: Whether the entry was renewed: `false` when there is none, or it holds other data or attributes.
    /// - Throws: As ``renewMetadata(_:attributes:ifContentHash:forKey:)``.
    @discardableResult
    package func renewMetadata(
        _ metadata: EntryMetadata,
        attributes: Data?,
        ifContentHash contentHash: UInt64,
        ifAttributes expected: Data?,
        forKey key: String
    ) throws -> Bool {
        try EntryOptions.checkAttributes(attributes)
        return try renew(
            metadata,
            attributes: .some(attributes),
            ifContentHash: contentHash,
            ifAttributes: .some(expected),
            forKey: key
        )
    }

    /// Renews an entry's trailer: its metadata, and its attributes when `attributes` is not `nil`, when it holds
    /// the data hashed `contentHash` (any data when `nil`) and the attributes `expected` (any when `nil`).
    private func renew(
        _ metadata: EntryMetadata,
        attributes: Data??,
        ifContentHash contentHash: UInt64?,
        ifAttributes expected: Data?? = nil,
        forKey key: String
    ) throws -> Bool {
        try StrataError.checkKey(key)
        try StrataError.checkMetadata(metadata)
        let name = EntryName(key: key)
        let now = configuration.clock.now()
        let storedAt = metadata.storedAt ?? now
        let expiresAt = metadata.expiry(timeToLive: configuration.timeToLive, now: now)
        return try withState { state in
            guard let entry = state.index.entry(name), entry.trailer.key == key,
                contentHash.map({ $0 == entry.trailer.contentHash }) ?? true,
                expected.map({ $0 == entry.trailer.attributes }) ?? true
            else { return false }
            guard metadata.renews(entryWithETag: entry.trailer.eTag, lastModified: entry.trailer.lastModified) else {
                return true
            }
            var trailer = entry.trailer
            // A stored list answer must not outlive an entry that now expires before it.
            storedListAnswer.noteEntry(forKey: key, expiringAt: expiresAt)
            if let attributes { trailer.attributes = attributes }
            trailer.created = storedAt
            trailer.expiresAt = expiresAt
            trailer.freshUntil = metadata.freshUntil
            trailer.forbidsServingStale = metadata.forbidsServingStale
            trailer.eTag = metadata.eTag
            trailer.lastModified = metadata.lastModified
            if !metadata.tags.isEmpty { trailer.tags = metadata.tags.sorted() }
            // A new write sequence: a read that overlapped the rewrite sees another version and reads again.
            trailer.writeSequence = state.index.nextSequence()
            let encoded = try encode(trailer)
            let renewal: Result<FileStamp?, StrataError>
            // A shorter trailer replaces the file: written in place, the file would end in the old footer over a torn
            // trailer until cut.
            let replacing = trailer.payloadSize + encoded.count < entry.fileLength
            guard entry.isOwnFile(stamped: try? folder.stamp(ofFile: name.fileName)) else {
                if isMissing(name) {
                    // Deleted behind the store's back: a miss, as a read takes it.
                    forgetEntry(name, in: &state)
                    return false
                }
                // Not the file the store wrote (a user's copy restored there, say): never written nor removed.
                forgetEntry(name, in: &state)
                let aside = EntryFile.setAside(name.fileName, in: folder)
                state.pendingReports.append(
                    StrataError(
                        .corrupt,
                        "FileDataSource found another file than its own at \(folder.qualified(name.fileName)) when "
                            + "renewing its entry: " + (aside.map { "set aside as \($0)" } ?? "left in place")
                    )
                )
                throw StrataError(
                    .io,
                    "Renewing an entry's metadata: \(folder.qualified(name.fileName)) is not the file the store wrote"
                )
            }
            do throws(POSIXCallError) {
                renewal = try renewFile(of: entry, at: trailer.payloadSize, encoded, replacing: replacing)
                // A growth the disk refused was cut back: the file is as it was, but for its time.
                if !replacing, case .failure = renewal {
                    state.index.restamp(name, try? folder.stamp(ofFile: name.fileName))
                }
            } catch {
                forgetEntry(name, in: &state)
                // Deleted behind the store's back between the look and the open: a miss.
                if error.code == ENOENT { return false }
                if let outcome = EntryFile.discard(name.fileName, in: folder) {
                    state.corruptEntriesRemoved += 1
                    state.pendingReports.append(
                        StrataError(
                            .corrupt,
                            "FileDataSource could not renew the entry file \(folder.qualified(name.fileName)) "
                                + "(\(error)): \(outcome)"
                        )
                    )
                }
                throw error.strataError("Renewing an entry's metadata")
            }
            // A failure that left the entry file as it was: the entry stays.
            let stamp = try renewal.get()
            var renewed = entry
            renewed.stamp = stamp
            renewed.trailer = trailer
            renewed.fileLength = trailer.payloadSize + encoded.count
            renewed.accessSequence = trailer.writeSequence
            renewed.lastAccess = storedAt
            state.index.insert(renewed)
            // Metadata that grew (tags, validators) may take the store past `maximumMetadataSize`, as a write may.
            evictOrReport(&state, now: configuration.clock.now())
            if replacing, configuration.durability == .durable {
                do throws(POSIXCallError) { try folder.sync() } catch {
                    throw error.strataError("Flushing the store folder")
                }
            }
            return true
        }
    }

    /// Whether nothing is at the entry file's name (one `fstatat`); `false` when the look fails.
    private func isMissing(_ name: EntryName) -> Bool {
        do throws(POSIXCallError) {
            return try folder.status(of: name.fileName) == nil
        } catch {
            return false
        }
    }

    /// Opens the file of `entry` with `flags` when it is the file the store wrote: a regular file with one link,
    /// as long as the index says, with the stamp the index keeps (``EntryIndex/Entry/isOwnFile(stamped:)``).
    ///
    /// - Throws: ``StrataStorage/POSIXCallError``; `EINVAL` when another link reaches the file, another kind of
    ///   item, a file of another length or another file (another inode, or changed since) is there.
    private func openOwnEntryFile(_ entry: EntryIndex.Entry, _ flags: Int32) throws(POSIXCallError) -> Int32 {
        let fileName = entry.name.fileName
        let descriptor = try folder.openFile(fileName, flags | O_NONBLOCK)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = POSIXCallError.last("fstat", folder.qualified(fileName))
            _ = close(descriptor)
            throw error
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == 1, Int(info.st_size) == entry.fileLength,
            entry.isOwnFile(stamped: FileStamp(info))
        else {
            _ = close(descriptor)
            throw POSIXCallError(call: "fstat", path: folder.qualified(fileName), code: EINVAL)
        }
        return descriptor
    }

    /// Gives the file of `entry` (whose data is `payloadSize` bytes) the trailer `trailer`: opens it when it is the
    /// store's own (`openOwnEntryFile`), read-only to copy its data into a new file when `replacing` (`replaceFile`),
    /// for writing to rewrite its trailer in place otherwise (`rewriteTrailer`), and closes it.
    ///
    /// - Returns: The file's stamp when the entry was renewed; the failure that left the entry file as it was.
    /// - Throws: ``StrataStorage/POSIXCallError`` when the file is not the store's, or was changed and not renewed.
    private func renewFile(
        of entry: EntryIndex.Entry,
        at payloadSize: Int,
        _ trailer: [UInt8],
        replacing: Bool
    ) throws(POSIXCallError) -> Result<FileStamp?, StrataError> {
        let descriptor = try openOwnEntryFile(entry, replacing ? O_RDONLY : O_RDWR)
        defer { _ = close(descriptor) }
        if replacing { return replaceFile(descriptor, named: entry.name.fileName, at: payloadSize, trailer) }
        return try rewriteTrailer(descriptor, of: entry, at: payloadSize, trailer)
    }

    /// Writes the entry's data (`payloadSize` bytes of `source`, its open file) and `trailer` to a new file and
    /// renames it over the entry's `fileName`: the renewal whose trailer is shorter, so that at every moment the
    /// name holds a whole entry, the old one or the new one. The new file is flushed before the rename in durable
    /// mode; the folder is the caller's to flush.
    ///
    /// - Returns: The new file's stamp when the entry was renewed; the failure that left the entry file as it was
    ///   (its data could not be copied, the new file not renamed).
    private func replaceFile(
        _ source: Int32,
        named fileName: String,
        at payloadSize: Int,
        _ trailer: [UInt8]
    ) -> Result<FileStamp?, StrataError> {
        let temporary: (name: String, stamp: FileStamp?)
        do {
            temporary = try writeTemporary { output in
                FileDescriptor.copy(from: source, to: output, length: payloadSize)
                    && trailer.withUnsafeBytes { FileDescriptor.writeAll(output, $0) }
            }
        } catch {
            return .failure(error)
        }
        renewalMidway()
        do throws(POSIXCallError) {
            try folder.rename(temporary.name, to: fileName)
        } catch {
            _ = try? folder.remove(temporary.name)
            return .failure(error.strataError("Renaming a file over an entry"))
        }
        return .success(temporary.stamp)
    }

    /// Writes `trailer` over the trailer of the file of `entry`, open as `descriptor` (whose data is `payloadSize`
    /// bytes and whose file is as long as the data and the new trailer, or shorter) and cuts the file after it;
    /// flushes it in durable mode.
    ///
    /// A longer trailer first makes its room past the file's end, before a byte of the old one is touched: a disk
    /// that has no room (`ENOSPC`, a quota) fails there, and the file is cut back to the entry it was.
    ///
    /// - Returns: The file's stamp once rewritten; the failure that left the entry file as it was (no room to grow).
    /// - Throws: ``StrataStorage/POSIXCallError`` when the file was changed and not renewed.
    private func rewriteTrailer(
        _ descriptor: Int32,
        of entry: EntryIndex.Entry,
        at payloadSize: Int,
        _ trailer: [UInt8]
    ) throws(POSIXCallError) -> Result<FileStamp?, StrataError> {
        let fileName = entry.name.fileName
        let growth = payloadSize + trailer.count - entry.fileLength
        if growth > 0 {
            let room = [UInt8](repeating: 0, count: growth)
            guard lseek(descriptor, off_t(entry.fileLength), SEEK_SET) >= 0,
                room.withUnsafeBytes({ FileDescriptor.writeAll(descriptor, $0) })
            else {
                let error = POSIXCallError.last("write", folder.qualified(fileName))
                guard FileDescriptor.truncate(descriptor, to: entry.fileLength),
                    configuration.durability != .durable || FileDescriptor.sync(descriptor)
                else {
                    throw .last("ftruncate", folder.qualified(fileName))
                }
                return .failure(error.strataError("Making room for an entry's longer metadata"))
            }
        }
        guard lseek(descriptor, off_t(payloadSize), SEEK_SET) >= 0,
            trailer.withUnsafeBytes({ FileDescriptor.writeAll(descriptor, $0) })
        else { throw .last("write", folder.qualified(fileName)) }
        renewalMidway()
        guard FileDescriptor.truncate(descriptor, to: payloadSize + trailer.count) else {
            throw .last("ftruncate", folder.qualified(fileName))
        }
        if configuration.durability == .durable, !FileDescriptor.sync(descriptor) {
            throw .last("fsync", folder.qualified(fileName))
        }
        return .success(FileStamp(openFile: descriptor))
    }
}
