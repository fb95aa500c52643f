import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataFile

struct FileGroupInvalidationTests {
    private func fill(_ store: FileDataSource) async throws {
        _ = try await store.put(Data("ann".utf8), in: IdQuery(1), tags: ["team:7", "user:1"])
        _ = try await store.put(Data("bob".utf8), in: IdQuery(2), tags: ["team:7"])
        _ = try await store.put(Data("cid".utf8), in: IdQuery(3), tags: ["team:8"])
        _ = try await store.put(Data("dan".utf8), in: IdQuery(4))
    }

    @Test func deletingATagRemovesEveryEntryOfTheGroupAndNoOther() async throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try await fill(store)

        try await store.delete(TagQuery("team:7"))

        #expect(store.sortedKeys() == ["3", "4"])
        #expect(store.keys(taggedWith: "user:1") == [])
        #expect(try await store.getEntry(IdQuery(3)).metadata.tags == ["team:8"])
    }

    @Test func tagsSurviveAReopenAndARenewalWithoutTags() async throws {
        // Given a store with tagged entries, one renewed without tags, closed
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            try await fill(store)
            _ = try await store.renewMetadata(EntryMetadata(eTag: "\"v2\""), in: IdQuery(1))
        }

        // When it is opened again
        let store = try folder.makeStore()

        // Then the groups are as written, and invalidating one removes it
        #expect(store.keys(taggedWith: "team:7") == ["1", "2"])
        #expect(try await store.getEntry(IdQuery(1)).metadata.eTag == "\"v2\"")
        try await store.delete(TagQuery("team:7"))
        #expect(store.sortedKeys() == ["3", "4"])
    }

    @Test func aTagEndingInACarriageReturnStaysATagOfItsOwnAfterAReopen() async throws {
        // Given an entry tagged "line\r" and "next" (the trailer joins them with "\n": "line\r\nnext", where Swift
        // sees the one Character "\r\n"), closed
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            _ = try await store.put(Data("ann".utf8), in: IdQuery(1), tags: ["line\r", "next"])
        }

        // When it is opened again, Then both tags are read back as written, and invalidating one removes the entry
        let store = try folder.makeStore()
        #expect(try await store.getEntry(IdQuery(1)).metadata.tags == ["line\r", "next"])
        #expect(store.keys(taggedWith: "next") == ["1"])
        try await store.delete(TagQuery("next"))
        #expect(store.sortedKeys() == [])
    }

    @Test(arguments: ["", "two\nlines", "two\r\nlines"])
    func aTagTheTrailerCannotKeepIsRefused(tag: String) async throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()

        let error = await #expect(throws: StrataError.self) {
            _ = try await store.put(Data("ann".utf8), in: IdQuery(1), tags: [tag])
        }
        #expect(error?.code == .invalidArgument)
        #expect(store.sortedKeys() == [])
    }

    @Test func anEntryWithoutTagsKeepsTheVersion4TrailerAndATaggedOneRoundTrips() throws {
        let plain = EntryTrailer(
            key: "k",
            eTag: nil,
            lastModified: nil,
            payloadSize: 3,
            contentHash: 7,
            writeSequence: 1,
            created: Date(timeIntervalSince1970: 1_750_000_000),
            expiresAt: nil
        )
        var tagged = plain
        tagged.tags = ["team:7", "user:1"]

        #expect(try plain.encoded().first == EntryTrailer.version)
        #expect(try tagged.encoded().first == EntryTrailer.taggedVersion)
        let body = try tagged.encoded().dropLast(EntryTrailer.footerLength - 8)
        #expect(Array(body).withUnsafeBytes { EntryTrailer(bytes: $0) } == tagged)
    }

    /// `delete(TagQuery)` lists the tag's keys, then removes each: an entry written under one of them in between,
    /// without the tag, was removed with the group.
    @Test func aWriteBetweenTheListingAndTheRemovalsIsKept() async throws {
        let folder = try TemporaryFolder()
        let base = try folder.makeStore()
        _ = try await base.put(Data("ann".utf8), in: IdQuery(1), tags: ["team:7"])
        _ = try await base.put(Data("bob".utf8), in: IdQuery(2), tags: ["team:7"])
        let store = WritingAfterTagListing(base) {
            try $0.setValue(Data("ann again".utf8), forKey: "1", metadata: EntryMetadata())
        }

        try await store.delete(TagQuery("team:7"))

        #expect(
            base.value(forKey: "1") == Data("ann again".utf8),
            "the write made after the listing, without the tag, was removed"
        )
        #expect(base.sortedKeys() == ["1"])
        #expect(base.keys(taggedWith: "team:7") == [])
    }
}
