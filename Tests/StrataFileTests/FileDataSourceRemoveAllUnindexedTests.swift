import Foundation
import Strata
import StrataFile
import Testing

/// `removeAll()` leaves no file at an entry name behind, indexed or not: none comes back at the next open.
struct FileDataSourceRemoveAllUnindexedTests {
    @Test func removeAllTakesFilesAtEntryNamesTheIndexDoesNotHold() throws {
        // Given an open store holding `a`, and, put in its folder behind its back, another store's sealed entry
        // file for `x` and a user's file at the entry name of `y`
        let folder = try TemporaryFolder()
        let sealedName: String
        do {
            let other = try folder.makeStore("other")
            try other.setValue(Data("x".utf8), forKey: "x")
            sealedName = try #require(try folder.entryFiles("other").first)
            let probe = try folder.makeStore("probe")
            try probe.setValue(Data("y".utf8), forKey: "y")
        }
        let usersName = try #require(try folder.entryFiles("probe").first)
        do {
            let store = try folder.makeStore()
            try store.setValue(Data("a".utf8), forKey: "a")
            try FileManager.default.copyItem(
                at: folder.storeURL("other").appendingPathComponent(sealedName),
                to: folder.storeURL().appendingPathComponent(sealedName)
            )
            try Data("the user's file".utf8).write(to: folder.storeURL().appendingPathComponent(usersName))

            // When every entry is removed
            try store.removeAll()
        }

        // Then no file is left at an entry name: the sealed one removed, the user's set aside, byte for byte; and
        // nothing comes back at the next open
        #expect(try folder.entryFiles().isEmpty)
        #expect(try folder.survivor(of: usersName) == Data("the user's file".utf8))
        #expect(try folder.makeStore().count == 0)
    }
}
