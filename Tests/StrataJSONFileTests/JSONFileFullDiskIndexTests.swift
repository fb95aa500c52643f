import Foundation
import Strata
import StrataJSONFile
import StrataTestSupport
import Testing

/// The index of a JSON store on a full disk (a 1 MiB tmpfs filled to its last page): a read whose value is good
/// never fails for the line that marks it used, and a line the disk cut short is taken back off the journal.
struct JSONFileFullDiskIndexTests {
    private static let item = Item(name: "a", number: 1)

    /// A store holding `a` on a 1 MiB tmpfs.
    private func storeHoldingA(on mount: TemporaryMount) throws -> JSONFileDataSource<Item> {
        let store = try JSONFileDataSource<Item>(folder: mount.url.appendingPathComponent("store"))
        try store.setValue(Self.item, forKey: "a")
        return store
    }

    /// Takes the rest of the disk with a file of zeros, returned.
    private func fill(_ mount: TemporaryMount) throws -> URL {
        let filler = mount.url.appendingPathComponent("filler")
        #expect(FileManager.default.createFile(atPath: filler.path, contents: nil))
        let handle = try FileHandle(forWritingTo: filler)
        while (try? handle.write(contentsOf: Data(count: 4_096))) != nil {}
        try? handle.close()
        return filler
    }

    /// Gives the filler's room back: cut to nothing first, for unlinking alone frees nothing while another process
    /// holds it open (a child another test spawns at that moment inherits this process's descriptors).
    private func free(_ filler: URL) throws {
        let handle = try FileHandle(forWritingTo: filler)
        try handle.truncate(atOffset: 0)
        try handle.close()
        try FileManager.default.removeItem(at: filler)
    }

    /// Before, the read threw `io` as soon as its recency line found no room.
    @Test(.enabled(if: TemporaryMount.isAvailable, "needs root and tmpfs (mount(2))"))
    func aReadOnAFullDiskReturnsItsValue() throws {
        // Given a store on a full disk
        let mount = try TemporaryMount(size: "1m")
        defer { mount.unmount() }
        var store: JSONFileDataSource<Item>? = try storeHoldingA(on: mount)
        let filler = try fill(mount)

        // When its entry is read more times than the index's last page has room for lines (of about 20 bytes)
        for _ in 0..<1_000 { #expect(try store?.value(forKey: "a") == Self.item) }

        // Then every read returned the value; once there is room again, the index opens whole
        try free(filler)
        try store?.setValue(Item(name: "b", number: 2), forKey: "b")
        store = nil
        let reopened = try JSONFileDataSource<Item>(folder: mount.url.appendingPathComponent("store"))
        #expect(reopened.corruptionCount == 0)
        #expect(try reopened.value(forKey: "a") == Self.item)
    }

    /// Before, the part of the line that fit stayed at the end of the journal, the next line was joined onto it,
    /// and the next open set the whole index aside as damaged and rebuilt it (its renewals and LRU order lost).
    @Test(.enabled(if: TemporaryMount.isAvailable, "needs root and tmpfs (mount(2))"))
    func aLineCutShortByAFullDiskLeavesTheIndexWhole() throws {
        // Given a store on a full disk, renewed until a renewal's index line finds no room
        let mount = try TemporaryMount(size: "1m")
        defer { mount.unmount() }
        var store: JSONFileDataSource<Item>? = try storeHoldingA(on: mount)
        let filler = try fill(mount)
        var failed = false
        for number in 0..<200 where !failed {
            do {
                try store?.renewMetadata(EntryMetadata(tags: ["t\(number)"]), forKey: "a")
            } catch {
                #expect((error as? StrataError)?.code == .io, "\(error)")
                failed = true
            }
        }
        #expect(failed)

        // When there is room again, and the entry is renewed once more
        try free(filler)
        try store?.renewMetadata(EntryMetadata(tags: ["last"]), forKey: "a")
        store = nil

        // Then the index opens whole, with the last renewal
        let reports = ReportCollector()
        let reopened = try JSONFileDataSource<Item>(
            configuration: .init(folder: mount.url.appendingPathComponent("store"), diagnostics: reports.diagnostics)
        )
        #expect(reports.all.isEmpty, "\(reports.all)")
        #expect(reopened.corruptionCount == 0)
        #expect(try reopened.listedEntry(forKey: "a")?.metadata.tags == ["last"])
    }
}
