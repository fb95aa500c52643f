import Foundation
import Strata
import StrataStorage

extension JSONFileStorage {
    /// Walks the store's own files: removes leftover temporary files (``isLeftoverTemporary(_:in:)``: the store's
    /// names, and earlier stores' names with contents that prove them) from the root and the shard folders, and
    /// calls `visit` with each entry file (a regular file with an entry's name) in each real shard folder.
    ///
    /// Nothing else is touched: names the store does not make are left alone, and a link, file or folder
    /// where the store expects something else is damage (reported; a link removed, never followed, anything
    /// else set aside).
    mutating func forEachEntryFile(
        now: Date,
        _ visit: (inout JSONFileStorage, _ shard: String, _ folder: StoreFolder, _ file: String) throws -> Void
    ) throws {
        do {
            // Each folder is walked name by name (`forEachItem`), never listed whole: a folder may hold millions of
            // names the store did not make. A name set aside during a walk is not one the walk acts on.
            try root.forEachItem { name, kind in
                guard Self.isLeftoverTemporary((name, kind), in: root) else { return }
                onTheWay("Removing the leftover temporary file", name, in: root) { try $0.root.remove(name) }
            }
            try entries.forEachItem { shardName, kind in
                guard Self.isShardName(shardName) else { return }
                guard kind == .folder else {
                    shards[shardName] = nil
                    onTheWay("Setting aside", shardName, in: entries) { storage in
                        try storage.setAsideItem(shardName, kind: kind, in: storage.entries, now: now)
                    }
                    return
                }
                guard let folder = try shard(shardName, create: false, now: now) else { return }
                try folder.forEachItem { name, kind in
                    if Self.isTemporaryName(name) {
                        guard Self.isLeftoverTemporary((name, kind), in: folder) else { return }
                        onTheWay("Removing the leftover temporary file", name, in: folder) { _ in
                            try folder.remove(name)
                        }
                    } else if Self.isEntryName(name) {
                        if kind == .file {
                            try visit(&self, shardName, folder, name)
                        } else {
                            onTheWay("Setting aside", name, in: folder) { storage in
                                try storage.setAsideItem(name, kind: kind, in: folder, now: now)
                            }
                        }
                    }
                }
            }
        } catch let error as POSIXCallError {
            throw error.strataError("Walking the entry folder \(entries.path)")
        }
    }

    /// Runs a removal or a setting aside the walk makes on its way, reporting a failure instead of ending the walk:
    /// one item the store cannot remove or rename (immutable, or another user's in a shared folder) must not stop an
    /// open, a `removeAll()` or a cleanup. Only a folder that cannot be listed ends it.
    private mutating func onTheWay(
        _ action: String,
        _ name: String,
        in folder: StoreFolder,
        _ body: (inout JSONFileStorage) throws -> Void
    ) {
        do {
            try body(&self)
        } catch {
            record(
                StrataError(
                    .io,
                    "\(action) \(folder.qualified(name)) failed; it is left where it is",
                    underlying: error
                )
            )
        }
    }

    /// Removes a link at `name` (the link itself) or sets aside what else is there, and reports it.
    private mutating func setAsideItem(_ name: String, kind: ItemKind, in folder: StoreFolder, now: Date) throws {
        if kind == .link {
            _ = try setAsideDamage(
                name,
                in: folder,
                error: POSIXCallError(call: "openat", path: folder.qualified(name), code: ELOOP),
                now: now
            )
        } else {
            try record(Self.setAside(name, in: folder, now: now, reason: "Not what the store keeps there"))
        }
    }

    /// Takes into the index every intact entry file it does not name (written by a put that a crash stopped
    /// before its index line, or lost with a damaged index); damaged ones are set aside. No entry file is ever
    /// deleted because the index does not know it.
    ///
    /// A file whose key would take the index past ``maximumMetadataSize`` is left where it is, not taken in, and the
    /// files so left are reported once (``Strata/StrataError/Code/tooLarge``): files planted while the store is open
    /// never reach memory together.
    ///
    /// - Returns: How many entries were taken in.
    @discardableResult
    mutating func adoptUnindexedEntries(now: Date, decodeHeader: (Data) throws -> EntryHeader) throws -> Int {
        let indexed = Set(records.keys.map { Self.fileName(of: $0) + ".json" })
        var adopted = 0
        var left = 0
        try forEachEntryRecord(now: now, decode: decodeHeader, skipping: indexed.contains, refusesOtherCoders: false) {
            storage,
            key,
            record in
            guard storage.record(for: key) == nil else { return }
            guard storage.metadataSize + record.metadataSize(key: key) <= storage.maximumMetadataSize else {
                left += 1
                return
            }
            var record = record
            // A file's sequence past the ceiling is not one the store gave: the entry counts as just written.
            if record.sequence >= JSONFileStorage.sequenceCeiling { record.sequence = storage.nextSequence }
            try storage.append(.put(key: key, record: record), now: now)
            storage.setRecord(record, for: key)
            storage.nextSequence = max(storage.nextSequence, record.sequence + 1)
            adopted += 1
        }
        if left > 0 {
            pendingReports.append(
                StrataError(
                    .tooLarge,
                    "JSONFileDataSource left \(left) entry files its index lacks in \(entries.path): taking them in "
                        + "would pass its maximumMetadataSize of \(maximumMetadataSize) bytes of keys and metadata"
                )
            )
        }
        return adopted
    }

    /// Deletes every entry file and temporary file the store made (``removeAll(now:)``, before the index is
    /// emptied), going on past an entry file that cannot be removed; with `durable`, each shard folder something
    /// was removed from is fsynced.
    ///
    /// - Returns: Whether an entry file is still there: when the walk went through every shard, those it could not
    ///   remove, otherwise (the walk failed part-way) every one it did not remove; and the first failure.
    mutating func removeEntryFiles(now: Date) -> (isKept: (String) -> Bool, failure: StrataError?) {
        var emptied: [StoreFolder] = []
        var kept: Set<String> = []
        var removed: Set<String> = []
        var failure: StrataError?
        var walked = false
        do {
            try forEachEntryFile(now: now) { _, _, folder, file in
                do throws(POSIXCallError) {
                    try folder.remove(file)
                } catch {
                    kept.insert(file)
                    if failure == nil { failure = error.strataError("Removing the entry file") }
                    return
                }
                removed.insert(file)
                if emptied.last !== folder { emptied.append(folder) }
            }
            walked = true
        } catch {
            failure =
                failure ?? (error as? StrataError)
                ?? StrataError(.io, "Removing the entry files", underlying: error)
        }
        if durable {
            for folder in emptied {
                do { try folder.sync() } catch {
                    failure = failure ?? error.strataError("Flushing the entry folder")
                }
            }
        }
        return (walked ? { kept.contains($0) } : { !removed.contains($0) }, failure)
    }
}
