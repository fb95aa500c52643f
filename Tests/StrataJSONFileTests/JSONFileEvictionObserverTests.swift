import Foundation
import Strata
import StrataJSONFile
import StrataTesting
import Testing

struct JSONFileEvictionObserverTests {
    private let recorder = EvictionRecorder()

    private func open(_ fixture: Fixture, countLimit: Int? = nil) throws -> JSONFileDataSource<Item> {
        var configuration = fixture.configuration(countLimit: countLimit, timeToLive: .seconds(10))
        configuration.evictionObserver = recorder
        return try JSONFileDataSource(configuration: configuration)
    }

    @Test func reportsCountLimitEvictionsExpiryAndPurges() async throws {
        try await withTemporaryFolder { folder in
            // Given a store of two entries at most
            let fixture = Fixture(folder: folder)
            let store = try open(fixture, countLimit: 2)
            for name in ["a", "b", "c"] { try store.setValue(Item(name: name, number: 0), forKey: name) }

            // When the rest expires, then one more is written and the store is emptied
            let size = try entryFileSizes(fixture).reduce(0, +) / 2
            fixture.clock.advance(by: .seconds(11))
            #expect(try store.removeExpired() == 2)
            try store.setValue(Item(name: "d", number: 0), forKey: "d")
            try store.removeAll()

            // Then each removal was heard, with the count and the bytes of entry files left (files of one size, as
            // the file system gives them)
            #expect(recorder.summary == ["a: countLimit", "b: expired", "c: expired", "*: purged"])
            #expect(recorder.evictions.map(\.usage.count) == [2, 1, 0, 0])
            #expect(size > 0)
            #expect(recorder.evictions.map(\.usage.bytes) == [2 * size, size, 0, 0])
        }
    }

    /// The sizes of the store's entry files, as the file system gives them.
    private func entryFileSizes(_ fixture: Fixture) throws -> [Int] {
        try fixture.files().filter { $0.hasPrefix("entries/") && $0.hasSuffix(".json") }.map { file in
            let path = fixture.folder.appendingPathComponent(file).path
            return try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        }
    }

    @Test func deletesByKeyAreNotEvictions() async throws {
        try await withTemporaryFolder { folder in
            let store = try open(Fixture(folder: folder))
            try store.setValue(Item(name: "a", number: 0), forKey: "a")

            try store.removeValue(forKey: "a")

            #expect(recorder.evictions.isEmpty)
        }
    }
}
