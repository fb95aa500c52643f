import Foundation
import Strata
import StrataFile
import Testing

/// A clock at a fixed date that runs an action once, at a chosen reading: a way into the moment between two of
/// the store's steps. A put reads the clock for its date before it takes its write sequence and writes its file,
/// and once more as it commits; the second reading from the put's start is the moment in between.
private final class SteppingClock: WallClock {
    private struct Pending {
        var readingsLeft = 0
        var action: (@Sendable () -> Void)?
        var ran = false
    }

    let date = Date(timeIntervalSince1970: 1_700_000_000)
    private let pending = Locked(Pending())

    /// Runs `action` at the `reading`-th call of ``now()`` from here on (1: the next).
    func run(atReading reading: Int, _ action: @escaping @Sendable () -> Void) {
        pending.withLock { $0 = Pending(readingsLeft: reading, action: action) }
    }

    /// Whether the action was run.
    var ran: Bool { pending.withLock { $0.ran } }

    func now() -> Date {
        let due = pending.withLock { state -> (@Sendable () -> Void)? in
            guard let action = state.action else { return nil }
            state.readingsLeft -= 1
            guard state.readingsLeft == 0 else { return nil }
            state.action = nil
            state.ran = true
            return action
        }
        due?()
        return date
    }

    func sleep(for duration: Duration) async throws {}
}

/// A put and a renewal of the same key that overlap land as one of their serial orders: the put is never lost.
struct FileDataSourceRenewalRaceTests {
    private static func makeStore(_ folder: TemporaryFolder, clock: SteppingClock) throws -> FileDataSource {
        try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "store", clock: clock))
    }

    @Test func aPutOverlappedByARenewalOfTheSameKeyIsNotLost() throws {
        // Given an entry, and a renewal of it (a 304, say) that lands while a put of new data writes its file
        let folder = try TemporaryFolder()
        let clock = SteppingClock()
        let store = try Self.makeStore(folder, clock: clock)
        try store.setValue(Data("v1".utf8), forKey: "k", options: .init(eTag: "\"v1\""))
        let version = try #require(store.info(forKey: "k")?.contentHash)
        let renewal = EntryMetadata(storedAt: clock.date, eTag: "\"v1\"")
        let renewed = Locked(false)
        clock.run(atReading: 2) {
            let done = try? store.renewMetadata(renewal, attributes: nil, ifContentHash: version, forKey: "k")
            renewed.withLock { $0 = done == true }
        }

        // When the put commits
        try store.setValue(Data("v2".utf8), forKey: "k", options: .init(eTag: "\"v2\""))

        // Then the store holds the put's data and metadata (the renewal came first), and so does a reopen
        #expect(clock.ran && renewed.withLock { $0 })
        #expect(store.value(forKey: "k") == Data("v2".utf8))
        #expect(store.info(forKey: "k")?.eTag == "\"v2\"")
        #expect(try folder.entryFiles().count == 1)
    }

    @Test func aMoveOverlappedByARenewalOfTheSameKeyIsNotLost() throws {
        // Given an entry, and a renewal of it that lands while a moved file is committed
        let folder = try TemporaryFolder()
        let clock = SteppingClock()
        let store = try Self.makeStore(folder, clock: clock)
        try store.setValue(Data("v1".utf8), forKey: "k")
        let download = folder.url.appendingPathComponent("download")
        try Data("v2".utf8).write(to: download)
        let renewed = Locked(false)
        clock.run(atReading: 2) {
            let done = try? store.renewMetadata(EntryMetadata(storedAt: clock.date, eTag: "\"v1\""), forKey: "k")
            renewed.withLock { $0 = done == true }
        }

        // When the file is moved in
        try store.move(fileAt: download, forKey: "k")

        // Then the store holds it (the caller's file was taken in, not thrown away)
        #expect(clock.ran && renewed.withLock { $0 })
        #expect(store.value(forKey: "k") == Data("v2".utf8))
        #expect(!FileManager.default.fileExists(atPath: download.path))
    }

    @Test func aLaterPutStillWinsOverAnEarlierOneThatCommitsAfterIt() throws {
        // Given a put that has written its file, and a second put of the key that commits before it
        let folder = try TemporaryFolder()
        let clock = SteppingClock()
        let store = try Self.makeStore(folder, clock: clock)
        clock.run(atReading: 2) { try? store.setValue(Data("later".utf8), forKey: "k") }

        // When the first put commits
        try store.setValue(Data("earlier".utf8), forKey: "k")

        // Then the later put's data stays, and the earlier one's file is gone
        #expect(clock.ran)
        #expect(store.value(forKey: "k") == Data("later".utf8))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
            .filter { $0.hasPrefix(".strata-tmp-") }
        #expect(leftovers.isEmpty)
    }
}
