import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

/// An inspector's removals by name (`strata verify --repair`, `prune`, `clear`) delete a file at an entry name only
/// when its sealed trailer proves the store wrote it; a user's file there is set aside, byte for byte.
struct FileStoreInspectorUnprovenFileTests {
    /// A closed store holding `a`, then a user's file put in place of `a`'s entry file: its name and contents.
    private func storeWithAUsersFileAtAnEntryName(_ folder: TemporaryFolder) throws -> (name: String, data: Data) {
        do {
            let store = try folder.makeStore()
            try store.setValue(.pattern(100), forKey: "a")
            try store.setValue(.pattern(80), forKey: "b")
        }
        let name = try folder.entryFiles()[0]
        let data = Data("the user's notes, not an entry\n".utf8) + Data.pattern(300)
        try data.write(to: folder.storeURL().appendingPathComponent(name))
        return (name, data)
    }

    /// `remove(fileNames:)` of a name listed while it held the store's file, now a user's file (the file swapped
    /// between `prune`'s listing and its removal, or `verify --repair` of a file that proves nothing): set aside.
    @Test func removingByNameSetsAsideAFileWithoutASealedTrailer() throws {
        let folder = try TemporaryFolder()
        let (name, data) = try storeWithAUsersFileAtAnEntryName(folder)
        let inspector = try FileStoreInspector(folder: folder.storeURL())
        let other = try #require(inspector.entries().first { $0.fileName != name }?.fileName)

        #expect(try inspector.remove(fileNames: [name, other]) == 2)

        #expect(try folder.survivor(of: name) == data)
        #expect(try folder.entryFiles().isEmpty, "the sealed entry is removed, the user's file is not at its name")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
                .filter { $0.hasPrefix(other) }.isEmpty
        )
    }

    /// `removeAllEntries()` (`strata clear`) sets a user's file at an entry name aside and leaves it there.
    @Test func removingAllEntriesSetsAsideAFileWithoutASealedTrailer() throws {
        let folder = try TemporaryFolder()
        let (name, data) = try storeWithAUsersFileAtAnEntryName(folder)

        #expect(try FileStoreInspector(folder: folder.storeURL()).removeAllEntries() == 2)

        #expect(try folder.survivor(of: name) == data)
        #expect(try folder.entryFiles().isEmpty)
        #expect(try folder.makeStore().count == 0)
    }
}
