import Foundation
import Strata
import StrataFile
import Testing

/// `removeAll()` leaves no file at an entry name behind, indexed or not: none comes back at the next open.
struct FileDataSourceRemoveAllUnindexedTests {
    /// The name of the sealed entry file of `key`, written by a store of its own (`store`), closed since.
    private func entryFile(of key: String, in folder: TemporaryFolder, store: String) throws -> String {
        try folder.makeStore(store).setValue(Data(key.utf8), forKey: key)
        return try #require(try folder.entryFiles(store).first)
    }

    /// Copies the entry file `name` of the store `store` into the main store's folder, behind its back.
    private func putIn(_ name: String, from store: String, in folder: TemporaryFolder) throws {
        try FileManager.default.copyItem(
            at: folder.storeURL(store).appendingPathComponent(name),
            to: folder.storeURL().appendingPathComponent(name)
        )
    }

    @Test func removeAllTakesFilesAtEntryNamesTheIndexDoesNotHold() throws {
        // Given an open store holding `a`, and, put in its folder behind its back, another store's sealed entry
        // file for `x` and a user's file at the entry name of `y`
        let folder = try TemporaryFolder()
        let sealedName = try entryFile(of: "x", in: folder, store: "other")
        let usersName = try entryFile(of: "y", in: folder, store: "probe")
        do {
            let store = try folder.makeStore()
            try store.setValue(Data("a".utf8), forKey: "a")
            try putIn(sealedName, from: "other", in: folder)
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

    /// A file at a key's entry name that the index lacks (one that could not be read when the store opened; here,
    /// another store's sealed file put in behind its back) goes with a removal of that key. Before, `removeValue`
    /// returned false and left it, and the next open took the removed key back in.
    @Test func removingAKeyTakesItsFileTheIndexDoesNotHold() throws {
        // Given an open store holding `a`, and another store's sealed entry file for `x` put in its folder
        let folder = try TemporaryFolder()
        let sealedName = try entryFile(of: "x", in: folder, store: "other")
        do {
            let store = try folder.makeStore()
            try store.setValue(Data("a".utf8), forKey: "a")
            try putIn(sealedName, from: "other", in: folder)

            // When the app removes `x`
            #expect(try store.removeValue(forKey: "x"))
        }

        // Then its file is gone, and the next open holds `a` alone
        #expect(try !folder.entryFiles().contains(sealedName))
        let reopened = try folder.makeStore()
        #expect(reopened.count == 1)
        #expect(reopened.value(forKey: "x") == nil)
    }
}
