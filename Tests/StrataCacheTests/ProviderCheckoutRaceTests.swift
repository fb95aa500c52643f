import Foundation
import Strata
import StrataFile
import StrataTestSupport
import Testing

@testable import StrataCache

/// A lookup that reads an entry while a store of a new version of its key lands hands out the new version and
/// leaves the checkout the store handed out as it was.
struct ProviderCheckoutRaceTests {
    /// A provider over a store on `clock`, whose readings let a test act between the provider's steps.
    private func makeProvider(_ folder: TemporaryFolder, clock: SteppingClock) throws -> FileCacheProvider {
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: clock)
        )
        return try FileCacheProvider(store: store)
    }

    /// Writes `text` over the start of the file at `url`, in place (the same file, its length kept when `text` is as
    /// long): a download changed under the provider.
    private func rewrite(_ url: URL, with text: String) {
        guard let handle = try? FileHandle(forWritingTo: url) else { return }
        try? handle.write(contentsOf: Data(text.utf8))
        try? handle.close()
    }

    /// A lookup whose read of the entry overlaps a store of version B: B is stored at the clock's reading inside the
    /// read. The lookup and the store hand out B's checkout, which stays. (The lookup saw the entry change under its
    /// read and treated it as a miss: it deleted the checkout the store had just handed out and returned `nil`;
    /// reading A and finishing after the store, it wrote A over B's checkout.)
    @Test func aLookupOverlappedByAStoreHandsOutTheNewVersionAndKeepsItsCheckout() throws {
        // Given version A stored, its checkout gone (so the next lookup reads the entry), and B ready to store
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = SteppingClock()
        let provider = try makeProvider(folder, clock: clock)
        let older = folder.url.appendingPathComponent("older")
        try Data("A".utf8).write(to: older)
        let checkout = try provider.store(objectAt: older, key: "k", headers: ["ETag": "\"A\""])
        try FileManager.default.removeItem(at: checkout)
        let newer = folder.url.appendingPathComponent("newer")
        try Data("BB".utf8).write(to: newer)
        let storedB = Locked<URL?>(nil)
        // The lookup reads the clock as it marks the entry used, as it looks at it, then as the read starts.
        clock.run(atReading: 3) {
            let url = try? provider.store(objectAt: newer, key: "k", headers: ["ETag": "\"B\""])
            storedB.withLock { $0 = url }
        }

        // When the key is looked up
        let found = provider.find(key: "k")

        // Then B was stored during the lookup, and both hand out B's checkout, which is still there
        #expect(clock.ran)
        let handedOut = try #require(storedB.withLock { $0 })
        #expect(found == handedOut)
        #expect(try Data(contentsOf: handedOut) == Data("BB".utf8))
        #expect(try Data(contentsOf: try provider.cachedItem(key: "k")) == Data("BB".utf8))
    }

    /// A download changed in place between the provider's copy of it and the store's move (at the move's clock
    /// reading): the checkout handed out holds the bytes the store took, and no staged copy stays. (The copy was
    /// handed out: the checkout held other bytes than the entry, and every later 304 confirmed them.)
    @Test func aDownloadChangedBeforeItsMoveHandsOutWhatTheStoreTook() throws {
        // Given a download that is rewritten, at the same length, as the store moves it
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = SteppingClock()
        let provider = try makeProvider(folder, clock: clock)
        let store = provider.store
        let download = folder.url.appendingPathComponent("download")
        try Data("first".utf8).write(to: download)
        // The store reads the clock as the provider's store starts, then as the move starts.
        clock.run(atReading: 2) { rewrite(download, with: "other") }

        // When it is stored
        let checkout = try provider.store(objectAt: download, key: "k", headers: ["ETag": "\"1\""])

        // Then the checkout holds what the store holds, and only the checkout is in the folder
        #expect(clock.ran)
        #expect(store.value(forKey: "k") == Data("other".utf8))
        #expect(try Data(contentsOf: checkout) == Data("other".utf8))
        let items = try FileManager.default.contentsOfDirectory(atPath: provider.checkoutFolder.path)
        #expect(items.filter { $0 != ".strata-lock" } == [FileCacheProvider.checkoutName("k")])
    }

    /// A pipe put in place of the staged copy while the store moves the download (its name is in the checkout
    /// folder, which the threat model lets others write): the provider's look at the copy opens it without waiting,
    /// finds no regular file, and hands out a checkout made from the store; the pipe stays. (The open waited for a
    /// writer for ever, holding the lock every later store and forget takes.)
    @Test(.timeLimit(.minutes(1))) func aPipeInPlaceOfTheStagedCopyHangsNothing() throws {
        // Given a download, and a pipe renamed over its staged copy as the store moves it
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = SteppingClock()
        let provider = try makeProvider(folder, clock: clock)
        let download = folder.url.appendingPathComponent("download")
        try Data("bytes".utf8).write(to: download)
        let checkouts = provider.checkoutFolder
        let pipe = Locked<String?>(nil)
        clock.run(atReading: 2) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: checkouts.path)) ?? []
            guard let staged = names.first(where: { $0.hasPrefix(FileCacheProvider.stagedPrefix) }) else { return }
            let made = checkouts.appendingPathComponent("pipe").path
            guard mkfifo(made, 0o644) == 0, rename(made, checkouts.appendingPathComponent(staged).path) == 0 else {
                return
            }
            pipe.withLock { $0 = staged }
        }

        // When it is stored
        let checkout = try provider.store(objectAt: download, key: "k", headers: ["ETag": "\"1\""])

        // Then the pipe was in place, the checkout holds the download, and the pipe is still there, a pipe
        #expect(clock.ran)
        let staged = try #require(pipe.withLock { $0 })
        #expect(try Data(contentsOf: checkout) == Data("bytes".utf8))
        var status = stat()
        #expect(lstat(checkouts.appendingPathComponent(staged).path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFIFO)
        // And a later store is not held up
        try Data("again".utf8).write(to: download)
        #expect(try Data(contentsOf: provider.store(objectAt: download, key: "k2", headers: [:])) == Data("again".utf8))
    }

    /// A store whose entry is removed (an app's "clear cache") as the provider looks at what it moved (the fourth
    /// clock reading) hands out the download all the same. (The checkout was pruned as one of a key the store no longer
    /// holds, in the call that handed it out: the URL named nothing.)
    @Test func aStoreWhoseEntryIsRemovedAsItLandsHandsOutTheDownload() throws {
        // Given a download, and a removal of its key just after the store's move
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = SteppingClock()
        let provider = try makeProvider(folder, clock: clock)
        let store = provider.store
        let download = folder.url.appendingPathComponent("download")
        try Data("bytes".utf8).write(to: download)
        // Readings: the provider's store starts, the move starts, the move commits, the provider looks at the entry.
        clock.run(atReading: 4) { _ = try? store.removeValue(forKey: "k") }

        // When it is stored
        let checkout = try provider.store(objectAt: download, key: "k", headers: ["ETag": "\"1\""])

        // Then the entry is gone, and the file handed out holds the download
        #expect(clock.ran)
        #expect(store.info(forKey: "k") == nil)
        #expect(try Data(contentsOf: checkout) == Data("bytes".utf8))
    }

    /// A download changed between the provider's copy and the store's move, whose entry is then removed before its
    /// checkout is made from the store: nothing holds the bytes the store took, and the store fails with
    /// ``Strata/StrataError/Code/io``, leaving nothing in the checkout folder. (It returned a URL that named nothing.)
    @Test func aChangedDownloadWhoseEntryIsRemovedFailsTheStore() throws {
        // Given a download rewritten as the store moves it, and its key removed as the provider prunes checkouts
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = SteppingClock()
        let provider = try makeProvider(folder, clock: clock)
        let store = provider.store
        let download = folder.url.appendingPathComponent("download")
        try Data("first".utf8).write(to: download)
        // Readings: the provider's store starts, the move starts, the move commits, the provider looks at the entry,
        // the prune lists the keys.
        clock.run(atReading: 2) {
            rewrite(download, with: "other")
            clock.run(atReading: 3) { _ = try? store.removeValue(forKey: "k") }
        }

        // When it is stored
        let error = #expect(throws: StrataError.self) {
            try provider.store(objectAt: download, key: "k", headers: ["ETag": "\"1\""])
        }

        // Then the store failed, and neither a checkout nor a staged copy is left
        #expect(clock.ran)
        #expect(error?.code == .io)
        #expect(store.info(forKey: "k") == nil)
        let items = try FileManager.default.contentsOfDirectory(atPath: provider.checkoutFolder.path)
        #expect(items.filter { $0 != ".strata-lock" } == [])
    }
}
