import Foundation
import Strata
import StrataJSONFile
import StrataTesting
import Testing

/// A JSON-file store as a repository's cache answers a listing only from a stored list answer it still holds whole.
struct JSONFileListAnswerTests {
    /// Before, storing main's answer in a store with room for fewer entries evicted some, and what was left was
    /// served as every entry from then on: main was not asked again.
    @Test func aStoredAnswerTheStoreCouldNotKeepWholeIsNotServed() async throws {
        try await withTemporaryFolder { folder in
            let cache = try Fixture(folder: folder).open(countLimit: 2)
            let items = ["a", "b", "c"].map { Item(name: $0, number: 1) }
            let main = ScriptedDataSource(Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0) }))
            let repository = CacheRepository(main: main, cache: cache)

            let first = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
            let second = try await repository.getAll(AllObjectsQuery(), operation: .default)

            #expect(Set(first.map(\.name)) == ["a", "b", "c"])
            #expect(Set(second.map(\.name)) == ["a", "b", "c"])
            #expect(main.callCount(.getAll) == 2, "the store holds two of the three: the list is main's again")
        }
    }

    /// An entry file of the stored answer removed behind the store's back: the answer is no longer whole, so it is
    /// not served (before, the listing skipped the missing entry and served the rest as every entry).
    @Test func aStoredAnswerMissingAnEntryIsNotServed() async throws {
        try await withTemporaryFolder { folder in
            try await Self.listAgain(in: folder, readingEachKey: false) { try FileManager.default.removeItem(at: $0) }
        }
    }

    /// Before, a single-key read that found an entry's file missing forgot the entry but kept the stored answer, and
    /// the next listing served what was left as every entry: main was not asked.
    @Test func anEntryAReadFindsMissingTakesTheStoredAnswerWithIt() async throws {
        try await withTemporaryFolder { folder in
            try await Self.listAgain(in: folder, readingEachKey: true) { try FileManager.default.removeItem(at: $0) }
        }
    }

    /// Before, a single-key read that found an entry's file damaged moved it aside and forgot the entry, but kept the
    /// stored answer.
    @Test func anEntryAReadFindsDamagedTakesTheStoredAnswerWithIt() async throws {
        try await withTemporaryFolder { folder in
            try await Self.listAgain(in: folder, readingEachKey: true) { try Data("not an entry".utf8).write(to: $0) }
        }
    }

    /// Stores main's answer of `a` and `b`, spoils one entry file with `spoil`, reads both keys one by one when
    /// `readingEachKey`, then lists again: main must be asked again, and the listing whole.
    private static func listAgain(
        in folder: URL,
        readingEachKey: Bool,
        spoil: (URL) throws -> Void
    ) async throws {
        let fixture = Fixture(folder: folder)
        let cache = try fixture.open()
        let items = ["a", "b"].map { Item(name: $0, number: 1) }
        let main = ScriptedDataSource(Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0) }))
        let repository = CacheRepository(main: main, cache: cache)
        _ = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
        let entryFiles = try fixture.files().filter { $0.hasPrefix("entries/") }
        #expect(entryFiles.count == 2)
        try spoil(folder.appendingPathComponent(entryFiles[0]))
        if readingEachKey {
            let read = try ["a", "b"].compactMap { try cache.value(forKey: $0) }
            #expect(read.count == 1)
        }

        let again = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)

        #expect(Set(again.map(\.name)) == ["a", "b"])
        #expect(main.callCount(.getAll) == 2, "the store lost an entry of the answer: the list is main's again")
    }

    /// Before, an entry of the stored answer put again with a shorter time to live than the answer's expired on its
    /// own, out of the listing, and what was left was served as every entry until the answer expired.
    @Test func anEntryPutAgainWithAShorterLifeTakesTheAnswerWithItWhenItExpires() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let cache = try fixture.open(timeToLive: .seconds(300))
            let items = ["a", "b", "c"].map { Item(name: $0, number: 1) }
            let main = ScriptedDataSource(Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0) }))
            let repository = CacheRepository(main: main, cache: cache)
            _ = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)

            try cache.setValue(Item(name: "b", number: 1), forKey: "b", timeToLive: .seconds(10))
            fixture.clock.advance(by: .seconds(11))
            let again = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)

            #expect(Set(again.map(\.name)) == ["a", "b", "c"])
            #expect(main.callCount(.getAll) == 2, "the answer went with its entry: the list is main's again")
        }
    }
}
