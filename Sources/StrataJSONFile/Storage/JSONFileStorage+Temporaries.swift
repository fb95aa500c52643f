import Foundation
import StrataStorage

extension JSONFileStorage {
    /// Whether `item` in `folder` is a leftover temporary file the store may remove: a regular file named as the
    /// store names them (``temporaryPrefix``), or named as earlier stores named theirs (``earlierTemporaryPrefix``)
    /// and holding what they wrote there, which its own checksums prove. Anything else is left alone.
    static func isLeftoverTemporary(_ item: (name: String, kind: ItemKind), in folder: StoreFolder) -> Bool {
        guard item.kind == .file else { return false }
        if StoreFolder.isTemporaryName(item.name, prefix: temporaryPrefix) { return true }
        guard StoreFolder.isTemporaryName(item.name, prefix: earlierTemporaryPrefix),
            let bytes = try? folder.readFile(item.name, limit: maximumFileSize)
        else { return false }
        return isEarlierStoresTemporary(bytes)
    }

    /// Whether `bytes` are what an earlier store wrote to a temporary file, proven by their checksums: an entry
    /// whose checksum line matches its JSON, or a whole index journal (its header, then only lines whose checksums
    /// match). A name alone (a user's `.tmp-cafe`) proves nothing.
    static func isEarlierStoresTemporary(_ bytes: Data) -> Bool {
        if case .sealed = bytes.withUnsafeBytes({ EntrySeal.open($0) }) { return true }
        guard let replay = try? IndexJournal.replay(bytes) else { return false }
        return !replay.hasTornTail
    }
}
