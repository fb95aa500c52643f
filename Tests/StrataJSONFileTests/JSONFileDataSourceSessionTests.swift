import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataJSONFile

/// A durable store fsyncs its entry files and folders but not its index lines; its `session` file tells the
/// next open whether lines can have been lost (a session of another boot left the store open), and then the
/// index is rebuilt from the entry files. Where the platform gives no boot identifier there is no session (every
/// index line is fsynced): the tests of a session are skipped by the platform, never by what the store wrote.
struct JSONFileDataSourceSessionTests {
    /// Whether the platform gives a boot identifier, and so a durable store a session.
    static let hasSessions = StoreSession.currentBootID != nil

    private func durable(_ folder: URL) throws -> JSONFileDataSource<Item> {
        try JSONFileDataSource<Item>(configuration: .init(folder: folder, durability: .durable))
    }

    private func session(_ folder: URL) -> String? {
        try? String(contentsOf: folder.appendingPathComponent("session"), encoding: .utf8)
    }

    /// What a power loss can leave: the index without its last lines, and the session still open, written
    /// by another boot.
    private func simulateMachineCrash(_ folder: URL, keepingIndexLines: Int) throws {
        try cutIndex(folder, keepingLines: keepingIndexLines)
        try "another-boot open".write(to: folder.appendingPathComponent("session"), atomically: true, encoding: .utf8)
    }

    /// Keeps the first `keepingLines` lines of the index: what a process killed before appending the rest leaves.
    private func cutIndex(_ folder: URL, keepingLines: Int) throws {
        let index = folder.appendingPathComponent("index.journal")
        let lines = try String(contentsOf: index, encoding: .utf8).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        try (lines.prefix(keepingLines).joined(separator: "\n") + "\n").write(
            to: index,
            atomically: true,
            encoding: .utf8
        )
    }

    private func indexLineCount(_ folder: URL) throws -> Int {
        try String(contentsOf: folder.appendingPathComponent("index.journal"), encoding: .utf8)
            .split(separator: "\n").count
    }

    @Test(.enabled(if: hasSessions, "no boot identifier: every index line is fsynced"))
    func aDurableStoreRecordsItsSessionAndClosesCleanly() async throws {
        try await withTemporaryFolder { folder in
            var store: JSONFileDataSource<Item>? = try durable(folder)
            let open = try #require(session(folder), "a durable store records its session")
            #expect(open.hasSuffix(" open"))
            try store?.setValue(Item(name: "a", number: 1), forKey: "a")
            store = nil
            #expect(session(folder) == open.replacingOccurrences(of: " open", with: " clean"))
            // An atomic store removes the file: its unsynced lines could break its promise.
            _ = try JSONFileDataSource<Item>(folder: folder)
            #expect(session(folder) == nil)
        }
    }

    @Test(.enabled(if: hasSessions, "no boot identifier: every index line is fsynced"))
    func aStoreLeftOpenByAnotherBootIsRebuiltWithEveryAcknowledgedDurableWrite() async throws {
        try await withTemporaryFolder { folder in
            var store: JSONFileDataSource<Item>? = try durable(folder)
            try #require(session(folder) != nil, "a durable store records its session")
            for number in 0..<6 { try store?.setValue(Item(name: "k\(number)", number: number), forKey: "k\(number)") }
            try store?.setValue(Item(name: "k1", number: 10), forKey: "k1")
            try store?.removeValue(forKey: "k2")
            store = nil

            // The power loss took every index line but the header.
            try simulateMachineCrash(folder, keepingIndexLines: 1)
            let reopened = try durable(folder)

            #expect(reopened.sortedKeys() == ["k0", "k1", "k3", "k4", "k5"])
            #expect(try reopened.value(forKey: "k1") == Item(name: "k1", number: 10))
            #expect(try reopened.value(forKey: "k5") == Item(name: "k5", number: 5))
            #expect(try reopened.value(forKey: "k2") == nil)
            #expect(reopened.corruptionCount == 0)
            #expect(session(folder)?.hasSuffix(" open") == true)
        }
    }

    @Test(.enabled(if: hasSessions, "no boot identifier: every index line is fsynced"))
    func removeAllOfADurableStoreStaysRemovedAfterARebuild() async throws {
        try await withTemporaryFolder { folder in
            var store: JSONFileDataSource<Item>? = try durable(folder)
            try #require(session(folder) != nil, "a durable store records its session")
            for number in 0..<4 { try store?.setValue(Item(name: "k\(number)", number: number), forKey: "k\(number)") }
            try store?.removeAll()
            try store?.setValue(Item(name: "after", number: 1), forKey: "after")
            store = nil

            try simulateMachineCrash(folder, keepingIndexLines: 1)
            let reopened = try durable(folder)

            #expect(reopened.sortedKeys() == ["after"])
        }
    }

    /// A process killed between a write's rename and its index line (in this boot) leaves a whole entry file the
    /// index lacks: the next open takes it in, so a removal of its key removes it. Before, the open replayed the index
    /// alone: the entry was not there, a removal left its file, and the next rebuild (after a reboot) brought it back.
    @Test(.enabled(if: hasSessions, "no boot identifier: every index line is fsynced"))
    func aStoreLeftOpenInThisBootTakesInTheEntryFileItsIndexLacks() async throws {
        try await withTemporaryFolder { folder in
            // Given a durable store killed after writing b's entry file, before its index line
            var store: JSONFileDataSource<Item>? = try durable(folder)
            let open = try #require(session(folder), "a durable store records its session")
            try store?.setValue(Item(name: "a", number: 1), forKey: "a")
            let indexLines = try indexLineCount(folder)
            try store?.setValue(Item(name: "b", number: 2), forKey: "b")
            store = nil
            try simulateMachineCrash(folder, keepingIndexLines: indexLines)
            try open.write(to: folder.appendingPathComponent("session"), atomically: true, encoding: .utf8)

            // When it opens again: b is there, and a removal of it sticks through a later rebuild
            var reopened: JSONFileDataSource<Item>? = try durable(folder)
            #expect(reopened?.sortedKeys() == ["a", "b"])
            #expect(try reopened?.value(forKey: "b") == Item(name: "b", number: 2))
            _ = try reopened?.removeValue(forKey: "b")
            reopened = nil
            try simulateMachineCrash(folder, keepingIndexLines: 1)
            let rebuilt = try durable(folder)
            #expect(rebuilt.sortedKeys() == ["a"])
        }
    }

    /// An atomic store (no `session` file) killed between a put's rename and its index line leaves an entry file the
    /// reopened index lacks: a removal of its key removes that file, so the next `removeExpired()` does not take the
    /// never-acknowledged value back in. (The removal found no record, returned false and left the file; the sweep
    /// adopted it and the removed key came back.)
    @Test func removingAKeyWhoseEntryFileTheIndexLacksRemovesTheFile() async throws {
        try await withTemporaryFolder { folder in
            // Given an atomic store killed after writing b's entry file, before its index line
            var store: JSONFileDataSource<Item>? = try JSONFileDataSource<Item>(folder: folder)
            try store?.setValue(Item(name: "a", number: 1), forKey: "a")
            let indexLines = try indexLineCount(folder)
            try store?.setValue(Item(name: "b", number: 2), forKey: "b")
            store = nil
            try cutIndex(folder, keepingLines: indexLines)
            var reopened: JSONFileDataSource<Item>? = try JSONFileDataSource<Item>(folder: folder)
            #expect(reopened?.sortedKeys() == ["a"])

            // When the app removes b, then sweeps
            #expect(try reopened?.removeValue(forKey: "b") == true)
            try reopened?.removeExpired()

            // Then b stays removed, now and at the next open
            #expect(reopened?.sortedKeys() == ["a"])
            #expect(try reopened?.value(forKey: "b") == nil)
            reopened = nil
            #expect(try JSONFileDataSource<Item>(folder: folder).sortedKeys() == ["a"])
        }
    }

    /// A store opened without durability (the default, the `strata` tool's) over a durable store that was killed
    /// leaves the `session` file saying it did not close: that session's index lines may be only in memory, and a
    /// power loss before they reach the disk must still make the next boot rebuild from the entry files. (The file was
    /// removed, and the next boot replayed an index that lacked acknowledged writes: `sortedKeys()` was empty.)
    @Test(.enabled(if: hasSessions, "no boot identifier: every index line is fsynced"))
    func anAtomicOpenKeepsTheSessionOfAKilledDurableStore() async throws {
        try await withTemporaryFolder { folder in
            // Given a durable store killed after four writes: its session says open
            var store: JSONFileDataSource<Item>? = try durable(folder)
            let open = try #require(session(folder), "a durable store records its session")
            for number in 0..<4 { try store?.setValue(Item(name: "k\(number)", number: number), forKey: "k\(number)") }
            store = nil
            try open.write(to: folder.appendingPathComponent("session"), atomically: true, encoding: .utf8)

            // When a store without durability opens it, writes and closes
            var atomic: JSONFileDataSource<Item>? = try JSONFileDataSource<Item>(folder: folder)
            #expect(atomic?.sortedKeys() == ["k0", "k1", "k2", "k3"])
            try atomic?.setValue(Item(name: "k4", number: 4), forKey: "k4")
            atomic = nil

            // Then the session still says open; and after a power loss that took the index lines (the file as the
            // reboot leaves it: the same, with the boot changed), a durable open rebuilds every write
            #expect(session(folder) == open)
            let kept = session(folder)
            try simulateMachineCrash(folder, keepingIndexLines: 1)
            if kept == nil { try FileManager.default.removeItem(at: folder.appendingPathComponent("session")) }
            let reopened = try durable(folder)
            #expect(reopened.sortedKeys() == ["k0", "k1", "k2", "k3", "k4"])
        }
    }

    /// A file at the `session` name that is not a session file (a user's store folder held one of their own) is
    /// moved aside and reported, durable store or not; never replaced or removed. (A durable store renamed its
    /// session over it.)
    @Test(arguments: [StoreDurability.durable, .atomic])
    func aForeignFileAtTheSessionNameIsSetAside(durability: StoreDurability) async throws {
        try await withTemporaryFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try "my notes\n".write(to: folder.appendingPathComponent("session"), atomically: true, encoding: .utf8)

            let store = try JSONFileDataSource<Item>(configuration: .init(folder: folder, durability: durability))

            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            let aside = try #require(names.first { $0.hasPrefix("session.corrupt-") })
            #expect(try String(contentsOf: folder.appendingPathComponent(aside), encoding: .utf8) == "my notes\n")
            #expect(store.corruptionCount == 1)
            if durability == .durable, let written = session(folder) {
                #expect(written.hasSuffix(" open"))
            }
        }
    }
}
