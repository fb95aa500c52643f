import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `FileStoreInspector.verify()` on an entry whose data cannot be read (a disk's I/O error, a permission a network
/// volume withdrew): the read proves nothing about the data, so the entry is not checked, and no damage that
/// `strata verify --repair` (which removes the entries whose `isDamaged` is true) would remove.
struct FileStoreInspectorReadErrorTests {
    /// Before, a read that failed while the data was hashed was reported as `truncated data`, damage: the repair
    /// removed a sound entry that a bad sector or a network volume had kept from being read once.
    @Test(arguments: [EIO, EACCES])
    func aReadThatFailsIsNotCheckedAndNoDamage(code: Int32) throws {
        // Given a store with one sound entry, and an inspector that may remove
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            try store.setValue(.pattern(100), forKey: "a")
        }
        let file = folder.storeURL().appendingPathComponent(try #require(try folder.entryFiles().first))
        let before = try Data(contentsOf: file)
        let inspector = try FileStoreInspector(folder: folder.storeURL(), access: .readWrite)

        // When its data cannot be read while it is verified, and what is damaged is removed, as a repair does
        let verified = FileDataSource.$failingReads.withValue(code) { inspector.verify() }
        let removed = try inspector.remove(fileNames: verified.filter(\.isDamaged).map(\.fileName))

        // Then the entry is listed as not checked, with the read's error, no damage, and stays byte for byte
        let entry = try #require(verified.first)
        #expect(verified.count == 1)
        #expect(entry.problem?.hasPrefix("not checked: ") == true, "\(entry.problem ?? "")")
        #expect(entry.problem?.contains(String(cString: strerror(code))) == true, "\(entry.problem ?? "")")
        #expect(!entry.isDamaged)
        #expect(removed == 0)
        #expect(try Data(contentsOf: file) == before)
        #expect(inspector.verify().allSatisfy { $0.problem == nil })
    }
}
