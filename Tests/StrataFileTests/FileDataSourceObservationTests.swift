import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

struct FileDataSourceObservationTests {
    @Test(.timeLimit(.minutes(1))) func writesRemovalsAndClearsAreAnnouncedInOrder() async throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        var changes = store.changes(forKey: nil).makeAsyncIterator()
        try store.setValue(Data("a".utf8), forKey: "k")
        #expect(await changes.next() == .put(key: "k"))
        try store.removeValue(forKey: "k")
        #expect(await changes.next() == .delete(key: "k"))
        try store.removeValue(forKey: "never-stored")
        try store.removeAll()
        #expect(await changes.next() == .deleteAll)
        #expect(store.origin == .file)
    }

    @Test(.timeLimit(.minutes(1))) func aMovedDownloadIsAnnouncedAsAPut() async throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let download = folder.url.appendingPathComponent("download.tmp")
        try Data("body".utf8).write(to: download)
        var changes = store.changes(forKey: "k").makeAsyncIterator()
        try store.move(fileAt: download, forKey: "k")
        #expect(await changes.next() == .put(key: "k"))
    }

    @Test(.timeLimit(.minutes(1))) func aDirectWriteReachesARepositoryStreamOverTheStore() async throws {
        // Given a stream of a repository whose cache is the file store
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(Data("v1".utf8), forKey: "k")
        let repository = CacheRepository(main: ScriptedDataSource<Data>(), cache: store)
        // Every response kept: with the default buffer of one, a consumer slower than the first read
        // sees its value without the loading before it (seen under ThreadSanitizer).
        var responses = repository.stream(KeyQuery("k"), operation: .cache, bufferingNewest: 16).makeAsyncIterator()
        #expect(await responses.next()?.isLoading == true)
        #expect(await responses.next()?.value == Data("v1".utf8))
        // When another part of the app writes to the store directly
        try store.setValue(Data("v2".utf8), forKey: "k")
        // Then the stream shows the new value, from the file origin
        let update = await responses.next()
        #expect(update?.value == Data("v2".utf8))
        #expect(update?.origin == .file)
    }

    /// Before, a delete whose announcement reached the stream after a later write's (the file store announces after it
    /// lets go of its lock) made the stream end on "deleted" while the store held the value.
    @Test(.timeLimit(.minutes(1))) func aDeleteAnnouncedAfterALaterWriteLeavesTheStreamOnTheValue() async throws {
        // Given a stream over a file store whose removals reach it late, showing the first value (each read a
        // `Reading`, which is not `Equatable`: the stream emits every read, a repeat included)
        struct Reading: Sendable { let data: Data }
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(Data("v1".utf8), forKey: "k")
        let source = HeldRemovals(store)
        defer { source.release() }
        let readings = source.mapped(to: { Reading(data: $0) }, from: { $0.data })
        var responses = SingleDataSourceRepository(readings).stream(KeyQuery("k"), bufferingNewest: 16)
            .makeAsyncIterator()
        #expect(await responses.next()?.isLoading == true)
        #expect(await responses.next()?.value?.data == Data("v1".utf8))
        // When the key is deleted, its announcement held, and written again, which is announced at once
        try store.removeValue(forKey: "k")
        await source.waitForHeldRemoval()
        try store.setValue(Data("v2".utf8), forKey: "k")
        #expect(await responses.next()?.value?.data == Data("v2".utf8))
        // And the delete's announcement arrives last
        source.release()
        // Then the stream ends on the value the store holds, not on "deleted"
        let last = await responses.next()
        #expect(last?.error == nil)
        #expect(last?.value?.data == Data("v2".utf8))
        #expect(store.value(forKey: "k") == Data("v2".utf8))
    }

    @Test(.timeLimit(.minutes(1))) func theToursCacheStackStreamsDiskWritesWithTheFileOrigin() async throws {
        // Given the tour's cache stack: the disk store, decoded, with a metrics plugin, then validated
        struct User: Codable, Sendable, Equatable { var name: String }
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let disk = try folder.makeStore(clock: clock)
        let metrics = MetricsPlugin()
        let cache = disk.decoding(User.self).plugins([metrics], name: "disk")
            .validated(by: .maxAge(.seconds(300), clock: clock))
        let repository = CacheRepository(main: ScriptedDataSource<User>(), cache: cache)
        try disk.setValue(try JSONEncoder().encode(User(name: "Ada")), forKey: "u")
        // Every response kept: with the default buffer of one, a consumer slower than the first read
        // sees its value without the loading before it (seen under ThreadSanitizer).
        var responses = repository.stream(KeyQuery("u"), operation: .cache, bufferingNewest: 16).makeAsyncIterator()
        #expect(await responses.next()?.isLoading == true)
        let first = await responses.next()
        #expect(first?.value == User(name: "Ada"))
        #expect(first?.origin == .file)
        // When the disk store is written directly, under the stack
        try disk.setValue(try JSONEncoder().encode(User(name: "Grace")), forKey: "u")
        // Then the write streams through every wrapper, and the origin is still the file's
        let update = await responses.next()
        #expect(update?.value == User(name: "Grace"))
        #expect(update?.origin == .file)
        #expect(update?.storedAt != nil)
    }
}

struct FileDataSourceConformanceTests {
    @Test func fileDataSourcePassesTheConformanceSuite() async throws {
        let folder = try TemporaryFolder()
        let counter = Locked(0)
        try await DataSourceConformance(
            capabilities: .keyValueStore,
            makeSource: {
                let identifier = counter.withLock { count -> String in
                    count += 1
                    return "conformance-\(count)"
                }
                return try folder.makeStore(identifier)
            },
            makeValue: { Data("value \($0)".utf8) }
        ).run()
    }
}
