import Foundation
import Strata
import StrataFile

extension BlobCache {
    /// Moves the records of the freshness store that earlier versions kept beside the blobs
    /// (`identifier.freshness`: the overrides a `304` or an extension wrote) into the blobs' own entries, then
    /// removes them from that store.
    ///
    /// A record is moved only onto the version of the blob it names; the others are dropped, as they were
    /// ignored. Only a folder that carries a file store's marker is opened, through the store itself, and only a
    /// store whose every entry is a freshness record is taken for the one earlier versions kept: a store of the
    /// user's that happens to have that name keeps every entry, in the same least-recently-used order. Best effort: a store another process still holds,
    /// or one that cannot be read, is left alone, and a record not moved only means that its blob is revalidated
    /// sooner.
    func moveLegacyFreshnessRecords() {
        let configuration = FileDataSource.Configuration(
            location: configuration.persistent.location,
            identifier: configuration.persistent.identifier + ".freshness",
            clock: configuration.clock
        )
        guard FileStoreInspector.isStore(at: configuration.folderURL) else { return }
        guard let legacy = try? FileDataSource(configuration: configuration) else { return }
        var records: [(key: String, record: FreshnessRecord)] = []
        for key in legacy.sortedKeys() {
            // Looked at without being used: until every entry proves a record, the store may be the user's.
            guard let bytes = legacy.peekValue(forKey: key), let record = FreshnessRecord.decode(bytes) else { return }
            records.append((key, record))
        }
        for (key, record) in records {
            if let info = blobs.info(forKey: key), record.contentHash == info.contentHash {
                _ = try? renew(record, of: info)
            }
            _ = try? legacy.removeValue(forKey: key)
        }
    }
}
