import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

struct GroupInvalidationTests {
    @Test func deletingATagRemovesEveryEntryOfTheGroupAndNoOther() async throws {
        // Given entries of two teams and one without a tag
        let store = MemoryDataSource<String>()
        _ = try await store.put("ann", in: IdQuery(1), tags: ["team:7", "user:1"])
        _ = try await store.put("bob", in: IdQuery(2), tags: ["team:7"])
        _ = try await store.put("cid", in: IdQuery(3), tags: ["team:8"])
        _ = try await store.put("dan", in: IdQuery(4))

        // When team 7 is invalidated
        try await store.delete(TagQuery("team:7"))

        // Then its entries are gone, and so are they from every tag's index
        #expect(store.sortedKeys() == ["3", "4"])
        #expect(store.keys(taggedWith: "team:7") == [])
        #expect(store.keys(taggedWith: "user:1") == [])
        #expect(store.keys(taggedWith: "team:8") == ["3"])
    }

    @Test func anEntryReadBackCarriesItsTags() async throws {
        let store = MemoryDataSource<String>()
        _ = try await store.put("ann", in: IdQuery(1), tags: ["team:7"])

        #expect(try await store.getEntry(IdQuery(1)).metadata.tags == ["team:7"])
    }

    @Test func aWriteReplacesTheTagsAndARenewalWithoutTagsKeepsThem() async throws {
        let store = MemoryDataSource<String>()
        _ = try await store.put("ann", in: IdQuery(1), tags: ["team:7"])
        _ = try await store.renewMetadata(EntryMetadata(eTag: "\"v2\""), in: IdQuery(1))
        #expect(store.keys(taggedWith: "team:7") == ["1"])

        _ = try await store.put("ann", in: IdQuery(1))

        #expect(store.keys(taggedWith: "team:7") == [])
        #expect(try await store.getEntry(IdQuery(1)).metadata.tags == [])
    }

    @Test func anEvictedEntryLeavesItsGroup() async throws {
        let store = MemoryDataSource<String>(countLimit: 2)
        for id in 1...3 { _ = try await store.put("v\(id)", in: IdQuery(id), tags: ["all"]) }

        #expect(store.keys(taggedWith: "all") == ["2", "3"])
    }

    @Test func anObserverOfAnInvalidatedEntrySeesItsDeletion() async throws {
        // Given an observer of entry 1, tagged team:7
        let store = MemoryDataSource<String>()
        _ = try await store.put("ann", in: IdQuery(1), tags: ["team:7"])
        var changes = store.changes(forKey: "1").makeAsyncIterator()

        // When the team is invalidated
        try await store.delete(TagQuery("team:7"))

        // Then the observer sees the deletion
        #expect(await changes.next() == .delete(key: "1"))
    }

    @Test func aRepositoryInvalidatesItsCacheAndReadsTheGroupFromMainAgain() async throws {
        // Given a repository whose cache holds a tagged entry
        let main = ScriptedDataSource(["1": "ann (main)"])
        let cache = MemoryDataSource<String>()
        _ = try await cache.put("ann (cached)", in: IdQuery(1), tags: ["team:7"])
        let repository = CacheRepository(main: main, cache: cache)
        // Every response kept: with the default buffer of one, a consumer slower than the first read
        // sees its value without the loading before it (seen under ThreadSanitizer).
        var responses = repository.stream(IdQuery(1), operation: .cache, bufferingNewest: 16).makeAsyncIterator()
        #expect(await responses.next()?.isLoading == true)
        #expect(await responses.next()?.value == "ann (cached)")

        // When the group is invalidated through the repository
        try await repository.invalidate(tag: "team:7")

        // Then the stream reports the entry gone, and the next read goes to main
        #expect(await responses.next()?.error?.strataCode == .notFound)
        #expect(try await repository.get(IdQuery(1), operation: .cacheSync) == "ann (main)")
        #expect(main.callCount(.get) == 1)
    }

    /// Before, the store's announcement of each removal reached the repository's streams: a screen reading through
    /// the cache said "deleted" for a value main still held, until some later write of it.
    @Test(.timeLimit(.minutes(1))) func anInvalidatedGroupIsReadAgainFromMainNotReportedDeleted() async throws {
        // Given a cache-first stream showing a tagged entry's cached copy
        let main = ScriptedDataSource(["1": "ann (main)"])
        let cache = MemoryDataSource<String>()
        _ = try await cache.put("ann (cached)", in: IdQuery(1), tags: ["team:7"])
        let repository = CacheRepository(main: main, cache: cache)
        var responses = repository.stream(IdQuery(1), operation: .cacheSync, bufferingNewest: 16).makeAsyncIterator()
        #expect(await responses.next()?.isLoading == true)
        #expect(await responses.next()?.value == "ann (cached)")

        // When the group is invalidated through the repository
        try await repository.invalidate(tag: "team:7")

        // Then the stream reads again and shows main's value, with no "deleted" before it
        let next = await responses.next()
        #expect(next?.value == "ann (main)", "\(String(describing: next))")
        #expect(next?.origin == .main)
    }

    /// `delete(TagQuery)` lists the tag's keys, then removes each: an entry written under one of them in between,
    /// without the tag, was removed with the group.
    @Test func aWriteBetweenTheListingAndTheRemovalsIsKept() async throws {
        let base = MemoryDataSource<String>()
        _ = try await base.put("ann", in: IdQuery(1), tags: ["team:7"])
        _ = try await base.put("bob", in: IdQuery(2), tags: ["team:7"])
        let store = WritingAfterTagListing(base) {
            try $0.setValue("ann again", forKey: "1", metadata: EntryMetadata())
        }

        try await store.delete(TagQuery("team:7"))

        #expect(
            base.value(forKey: "1") == "ann again",
            "the write made after the listing, without the tag, was removed"
        )
        #expect(base.sortedKeys() == ["1"])
        #expect(base.keys(taggedWith: "team:7") == [])
    }
}
