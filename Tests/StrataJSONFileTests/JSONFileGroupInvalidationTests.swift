import Foundation
import Strata
import StrataJSONFile
import StrataTestSupport
import Testing

struct JSONFileGroupInvalidationTests {
    private func fill(_ store: JSONFileDataSource<Item>) async throws {
        _ = try await store.put(Item(name: "ann", number: 1), in: IdQuery(1), tags: ["team:7", "user:1"])
        _ = try await store.put(Item(name: "bob", number: 2), in: IdQuery(2), tags: ["team:7"])
        _ = try await store.put(Item(name: "cid", number: 3), in: IdQuery(3), tags: ["team:8"])
        _ = try await store.put(Item(name: "dan", number: 4), in: IdQuery(4))
    }

    @Test func deletingATagRemovesEveryEntryOfTheGroupAndNoOther() async throws {
        try await withTemporaryFolder { folder in
            let store = try JSONFileDataSource<Item>(folder: folder)
            try await fill(store)

            try await store.delete(TagQuery("team:7"))

            #expect(store.sortedKeys() == ["3", "4"])
            #expect(store.keys(taggedWith: "user:1") == [])
            #expect(try await store.getEntry(IdQuery(3)).metadata.tags == ["team:8"])
        }
    }

    @Test func tagsSurviveAReopen() async throws {
        try await withTemporaryFolder { folder in
            // Given a store with tagged entries, renewed once without tags, and closed
            do {
                let store = try JSONFileDataSource<Item>(folder: folder)
                try await fill(store)
                _ = try await store.renewMetadata(EntryMetadata(), in: IdQuery(1))
            }

            // When it is opened again
            let store = try JSONFileDataSource<Item>(folder: folder)

            // Then the groups are as written, and invalidating one removes it
            #expect(store.keys(taggedWith: "team:7") == ["1", "2"])
            #expect(store.keys(taggedWith: "user:1") == ["1"])
            try await store.delete(TagQuery("team:7"))
            #expect(store.sortedKeys() == ["3", "4"])
        }
    }

    @Test func tagsSurviveARebuildOfTheIndexFromTheEntryFiles() async throws {
        try await withTemporaryFolder { folder in
            do {
                let store = try JSONFileDataSource<Item>(folder: folder)
                try await fill(store)
            }
            try FileManager.default.removeItem(at: folder.appendingPathComponent("index.journal"))

            let store = try JSONFileDataSource<Item>(folder: folder)

            #expect(store.keys(taggedWith: "team:7") == ["1", "2"])
        }
    }

    @Test(arguments: [false, true])
    func aTagEndingInACarriageReturnStaysATagOfItsOwnAfterAReopen(rebuildingTheIndex: Bool) async throws {
        try await withTemporaryFolder { folder in
            // Given an entry tagged "line\r" and "next" (the index joins them with "\n": "line\r\nnext", where
            // Swift sees the one Character "\r\n"), closed, its index journal removed or not
            do {
                let store = try JSONFileDataSource<Item>(folder: folder)
                _ = try await store.put(Item(name: "ann", number: 1), in: IdQuery(1), tags: ["line\r", "next"])
            }
            if rebuildingTheIndex {
                try FileManager.default.removeItem(at: folder.appendingPathComponent("index.journal"))
            }

            // When it is opened again, Then both tags are read back as written, and invalidating one removes it
            let store = try JSONFileDataSource<Item>(folder: folder)
            #expect(try await store.getEntry(IdQuery(1)).metadata.tags == ["line\r", "next"])
            #expect(store.keys(taggedWith: "next") == ["1"])
            try await store.delete(TagQuery("next"))
            #expect(store.sortedKeys() == [])
        }
    }

    @Test(arguments: ["", "two\nlines", "two\r\nlines"])
    func aTagTheIndexCannotKeepIsRefused(tag: String) async throws {
        try await withTemporaryFolder { folder in
            let store = try JSONFileDataSource<Item>(folder: folder)

            await #expect(throws: StrataError.self) {
                _ = try await store.put(Item(name: "ann", number: 1), in: IdQuery(1), tags: [tag])
            }
            #expect(store.sortedKeys() == [])
        }
    }

    /// `delete(TagQuery)` lists the tag's keys, then removes each: an entry written under one of them in between,
    /// without the tag, was removed with the group.
    @Test func aWriteBetweenTheListingAndTheRemovalsIsKept() async throws {
        try await withTemporaryFolder { folder in
            let base = try JSONFileDataSource<Item>(folder: folder)
            _ = try await base.put(Item(name: "ann", number: 1), in: IdQuery(1), tags: ["team:7"])
            _ = try await base.put(Item(name: "bob", number: 2), in: IdQuery(2), tags: ["team:7"])
            let store = WritingAfterTagListing(base) {
                try $0.setValue(Item(name: "ann again", number: 1), forKey: "1", metadata: EntryMetadata())
            }

            try await store.delete(TagQuery("team:7"))

            #expect(
                try base.value(forKey: "1")?.name == "ann again",
                "the write made after the listing, without the tag, was removed"
            )
            #expect(base.sortedKeys() == ["1"])
            #expect(base.keys(taggedWith: "team:7") == [])
        }
    }
}
