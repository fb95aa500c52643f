import Foundation
import Strata
import StrataFile
import StrataTesting
import Testing

struct FileEvictionObserverTests {
    private let clock = ManualClock()
    private let recorder = EvictionRecorder()

    private func makeStore(in folder: TemporaryFolder, countLimit: Int? = nil, maxSize: Int? = nil) throws
        -> FileDataSource
    {
        var configuration = FileDataSource.Configuration(
            location: .url(folder.url),
            identifier: "store",
            timeToLive: .seconds(10),
            maxSize: maxSize,
            countLimit: countLimit,
            clock: clock
        )
        configuration.evictionObserver = recorder
        return try FileDataSource(configuration: configuration)
    }

    @Test func reportsEvictionsOverTheCountLimitAndOverMaxSize() throws {
        let folder = try TemporaryFolder()
        let byCount = try makeStore(in: folder, countLimit: 2)
        for key in ["a", "b", "c"] { try byCount.setValue(.pattern(10), forKey: key) }
        #expect(recorder.summary == ["a: countLimit"])
        #expect(recorder.evictions.last?.usage == StoreUsage(count: 2, bytes: 20))
        try byCount.removeAll()

        let otherFolder = try TemporaryFolder()
        let bySize = try makeStore(in: otherFolder, maxSize: 25)
        for key in ["d", "e", "f"] { try bySize.setValue(.pattern(10), forKey: key) }

        #expect(recorder.summary == ["a: countLimit", "*: purged", "d: sizeLimit"])
        #expect(recorder.evictions[1].count == 2)
        #expect(recorder.evictions.last?.usage == StoreUsage(count: 2, bytes: 20))
    }

    @Test func reportsExpiredEntriesOnReadAndOnRemoveExpired() throws {
        let folder = try TemporaryFolder()
        let store = try makeStore(in: folder)
        for key in ["a", "b"] { try store.setValue(.pattern(4), forKey: key) }
        clock.advance(by: .seconds(11))

        #expect(store.value(forKey: "a") == nil)
        #expect(try store.removeExpired() == 1)

        #expect(recorder.summary == ["a: expired", "b: expired"])
        #expect(recorder.evictions.last?.usage == StoreUsage(count: 0, bytes: 0))
    }

    @Test func deletesByKeyAreNotEvictions() throws {
        let folder = try TemporaryFolder()
        let store = try makeStore(in: folder)
        try store.setValue(.pattern(4), forKey: "a")

        try store.removeValue(forKey: "a")

        #expect(recorder.evictions.isEmpty)
    }
}
