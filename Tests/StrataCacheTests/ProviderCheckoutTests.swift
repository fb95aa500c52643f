import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataCache

/// The files a ``FileCacheProvider`` hands out: one checkout per key, written once per version of the entry.
struct ProviderCheckoutTests {
    private func makeProvider(_ folder: TemporaryFolder) throws -> FileCacheProvider {
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
        )
        return try FileCacheProvider(store: store)
    }

    private func store(_ body: Data, key: String, in provider: FileCacheProvider, _ folder: TemporaryFolder) throws
        -> URL
    {
        let download = folder.url.appendingPathComponent("download")
        try body.write(to: download)
        return try provider.store(objectAt: download, key: key, headers: ["ETag": "\"\(body.count)\""])
    }

    /// Every name in the checkout folder, hidden ones (staged copies) included, but the lock file of the provider's
    /// claim on the folder.
    private func checkoutFolderItems(_ provider: FileCacheProvider) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: provider.checkoutFolder.path)
            .filter { $0 != ".strata-lock" }.sorted()
    }

    /// Moves the checkout folder away and puts a link to `target` at its path: the folder the provider holds is
    /// then `moved`.
    private func swapCheckoutFolder(of provider: FileCacheProvider, forALinkTo target: URL, movingItTo moved: URL)
        throws
    {
        try FileManager.default.moveItem(at: provider.checkoutFolder, to: moved)
        try FileManager.default.createSymbolicLink(at: provider.checkoutFolder, withDestinationURL: target)
    }

    /// The checkout's inode: a rewritten checkout is a new file renamed over the old one.
    private func inode(_ url: URL) throws -> UInt64? {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? NSNumber)?.uint64Value
    }

    @Test func repeatedLookupsHandOutTheSameCheckoutWithoutWritingItAgain() throws {
        // Given a stored download
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let stored = try store(pattern(count: 5_000), key: "k", in: provider, folder)
        let original = try inode(stored)

        // When it is looked up many times
        var handedOut: Set<URL> = []
        for _ in 0..<20 {
            handedOut.insert(try #require(provider.find(key: "k")))
            handedOut.insert(try provider.cachedItem(key: "k"))
        }

        // Then every call hands out the one checkout, never rewritten, and no other file appears
        #expect(handedOut == [stored])
        #expect(try inode(stored) == original)
        #expect(try Data(contentsOf: stored) == pattern(count: 5_000))
        #expect(try checkoutFolderItems(provider) == [FileCacheProvider.checkoutName("k")])
    }

    /// A store whose entry is expired as soon as it is written (a store with no lifetime) hands out the download all
    /// the same: the checkout it returns is there and holds the download's bytes. (The checkout was pruned as one of a
    /// key the store no longer holds, in the call that handed it out: the URL named nothing.)
    @Test func aStoreWhoseEntryExpiresAtOnceHandsOutTheDownload() throws {
        // Given a store whose entries expire as they are written
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try FileDataSource(
            configuration: .init(
                location: .url(folder.url),
                identifier: "assets",
                timeToLive: .zero,
                clock: ManualClock()
            )
        )
        let provider = try FileCacheProvider(store: store)

        // When a download is stored
        let checkout = try self.store(pattern(count: 1_000), key: "k", in: provider, folder)

        // Then the file handed out holds the download, though the store holds no entry for it
        #expect(store.info(forKey: "k") == nil)
        #expect(try Data(contentsOf: checkout) == pattern(count: 1_000))
    }

    @Test func aLookupOfACurrentCheckoutDoesNotReadTheEntry() throws {
        // Given a stored download whose entry file is then damaged in place (same length, one byte flipped)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let checkout = try store(pattern(count: 1_000), key: "k", in: provider, folder)
        let storeFolder = folder.url.appendingPathComponent("assets")
        let entries = try FileManager.default.contentsOfDirectory(atPath: storeFolder.path)
            .filter { $0.hasSuffix(".strata") }
        let entry = storeFolder.appendingPathComponent(try #require(entries.first))
        var bytes = try Data(contentsOf: entry)
        bytes[10] ^= 0xFF
        try bytes.write(to: entry)

        // When the key is looked up: the checkout of the entry's version is handed out without reading it
        #expect(provider.find(key: "k") == checkout)
        #expect(try Data(contentsOf: checkout) == pattern(count: 1_000))

        // Then a read of the entry itself finds the damage
        #expect(provider.store.value(forKey: "k") == nil)
        #expect(entries.count == 1)
    }

    @Test func aNewVersionReplacesTheCheckoutInPlace() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let first = try store(pattern(count: 100), key: "k", in: provider, folder)

        let second = try store(Data("changed".utf8), key: "k", in: provider, folder)

        #expect(second == first)
        #expect(try Data(contentsOf: try provider.cachedItem(key: "k")) == Data("changed".utf8))
        #expect(try checkoutFolderItems(provider) == [FileCacheProvider.checkoutName("k")])
    }

    @Test func aCheckoutChangedOrRemovedOutsideIsWrittenAgainFromTheStore() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let url = try store(pattern(count: 300), key: "k", in: provider, folder)

        // A checkout cut short is written again
        try Data("short".utf8).write(to: url)
        #expect(try Data(contentsOf: try provider.cachedItem(key: "k")) == pattern(count: 300))

        // A removed checkout is written again
        try FileManager.default.removeItem(at: url)
        #expect(try Data(contentsOf: try #require(provider.find(key: "k"))) == pattern(count: 300))
        #expect(try checkoutFolderItems(provider) == [FileCacheProvider.checkoutName("k")])
    }

    @Test func aDownloadLargerThanTheStoresReadLimitIsCheckedOutAgainFromTheStore() throws {
        // Given a store that loads at most 64 KiB into memory, and a download of 1 MiB stored through the provider
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var configuration = FileDataSource.Configuration(location: .url(folder.url), identifier: "assets")
        configuration.maximumReadSize = 64 << 10
        let provider = try FileCacheProvider(store: try FileDataSource(configuration: configuration))
        let url = try store(pattern(count: 1 << 20), key: "k", in: provider, folder)

        // When its checkout is removed and the key looked up again
        try FileManager.default.removeItem(at: url)
        let found = try #require(provider.find(key: "k"))

        // Then the checkout is copied from the store whatever the limit, and only it is in the checkout folder
        #expect(try Data(contentsOf: found) == pattern(count: 1 << 20))
        #expect(try checkoutFolderItems(provider) == [FileCacheProvider.checkoutName("k")])
        #expect(provider.store.value(forKey: "k") == nil)
    }

    @Test(.enabled(if: TemporaryMount.isAvailable))
    func aCheckoutThatDoesNotFitIsAnIOErrorAndLeavesNothingBehind() throws {
        // Given a checkout folder on a disk of 1 MiB, and an entry of 2 MiB in the store
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mount = try TemporaryMount(size: "1m")
        defer { mount.unmount() }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "assets"))
        let provider = try FileCacheProvider(store: store, checkoutFolder: mount.url.appendingPathComponent("out"))
        let download = folder.url.appendingPathComponent("download")
        try pattern(count: 2 << 20).write(to: download)
        try store.move(fileAt: download, forKey: "k")

        // When the key is looked up after a 304
        let error = #expect(throws: StrataError.self) { try provider.cachedItem(key: "k") }

        // Then the full disk is said as such (not a miss), the entry is kept, and no staged copy is left
        #expect(error?.code == .io, "\(String(describing: error))")
        #expect(store.info(forKey: "k")?.size == 2 << 20)
        #expect(try checkoutFolderItems(provider) == [])
        #expect(provider.find(key: "k") == nil)
    }

    @Test func aCheckoutEditedInPlaceOrReplacedByALinkIsWrittenAgainAndNothingOutsideIsTouched() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let url = try store(pattern(count: 300), key: "k", in: provider, folder)

        // An edit of the same length, in place (same file, same size)
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: Data(repeating: 0x21, count: 300))
        try handle.close()
        #expect(try Data(contentsOf: try provider.cachedItem(key: "k")) == pattern(count: 300))

        // A link to a file outside, with the same bytes and length as the checkout
        let outside = folder.url.appendingPathComponent("outside")
        try pattern(count: 300).write(to: outside)
        try FileManager.default.removeItem(at: url)
        try FileManager.default.createSymbolicLink(at: url, withDestinationURL: outside)
        let handedOut = try #require(provider.find(key: "k"))

        #expect(handedOut == url)
        let kind = try FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType
        #expect(kind == .typeRegular, "the link was replaced by a checkout of the provider's own")
        #expect(try Data(contentsOf: handedOut) == pattern(count: 300))
        #expect(try Data(contentsOf: outside) == pattern(count: 300))
    }

    @Test func aReopenedProviderWritesEachCheckoutOnceThenReusesIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        do { _ = try store(pattern(count: 64), key: "k", in: try makeProvider(folder), folder) }

        let reopened = try makeProvider(folder)
        let first = try reopened.cachedItem(key: "k")
        let written = try inode(first)
        let again = try reopened.cachedItem(key: "k")

        #expect(again == first)
        #expect(try inode(again) == written)
        #expect(try Data(contentsOf: again) == pattern(count: 64))
    }

    @Test func aStoreAfterTheCheckoutFolderWasSwappedForALinkFailsAndWritesNothingOutside() throws {
        // Given a provider whose checkout folder is then moved away, and a link to a folder of the user's put in
        // its place
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let outside = folder.url.appendingPathComponent("outside", isDirectory: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        try Data("user".utf8).write(to: outside.appendingPathComponent("user.txt"))
        let moved = folder.url.appendingPathComponent("moved", isDirectory: true)
        try swapCheckoutFolder(of: provider, forALinkTo: outside, movingItTo: moved)

        // When a download is stored
        let download = folder.url.appendingPathComponent("download")
        try Data("payload".utf8).write(to: download)
        let error = #expect(throws: StrataError.self) {
            try provider.store(objectAt: download, key: "k", headers: [:])
        }

        // Then it fails before copying or storing anything: the user's folder holds only their file, the folder
        // the provider holds no staged copy, and the download is where it was
        #expect(error?.code == .io)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["user.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: moved.path).filter { $0 != ".strata-lock" } == [])
        #expect(provider.store.count == 0)
        #expect(try Data(contentsOf: download) == Data("payload".utf8))
    }

    @Test func aCheckoutIsHandedOutOnlyWhileTheCheckoutFoldersPathLeadsToTheHeldFolder() throws {
        // Given a stored download, and the checkout folder then moved away and replaced by a link to a folder
        // holding a forged file named as the key's checkout
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        _ = try store(Data("genuine".utf8), key: "k", in: provider, folder)
        let outside = folder.url.appendingPathComponent("outside", isDirectory: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        let forged = outside.appendingPathComponent(FileCacheProvider.checkoutName("k"))
        try Data("forged by the attacker".utf8).write(to: forged)
        let moved = folder.url.appendingPathComponent("moved", isDirectory: true)
        try swapCheckoutFolder(of: provider, forALinkTo: outside, movingItTo: moved)

        // When it is looked up
        let error = #expect(throws: StrataError.self) { try provider.cachedItem(key: "k") }

        // Then no URL naming the forged file is handed out; the forged file and the entry are as they were
        #expect(error?.code == .io)
        #expect(provider.find(key: "k") == nil)
        #expect(try Data(contentsOf: forged) == Data("forged by the attacker".utf8))
        #expect(provider.store.value(forKey: "k") == Data("genuine".utf8))

        // And a link that leads back to the held folder hands out the genuine checkout again
        try FileManager.default.removeItem(at: provider.checkoutFolder)
        try FileManager.default.createSymbolicLink(at: provider.checkoutFolder, withDestinationURL: moved)
        #expect(try Data(contentsOf: try provider.cachedItem(key: "k")) == Data("genuine".utf8))
    }

    @Test func aLinkAFolderOrAPipeGivenAsTheDownloadIsRefusedAndLeavesNothingBehind() throws {
        // Given a provider, and as downloads a link to a file of the user's, a folder holding a file, and a pipe
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let secret = folder.url.appendingPathComponent("secret.txt")
        try Data("secret".utf8).write(to: secret)
        let link = folder.url.appendingPathComponent("download-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: secret)
        let tree = folder.url.appendingPathComponent("download-folder", isDirectory: true)
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: false)
        try Data("inner".utf8).write(to: tree.appendingPathComponent("inner.txt"))
        let pipe = folder.url.appendingPathComponent("download-pipe")
        #expect(mkfifo(pipe.path, 0o644) == 0)

        // When each is stored
        var codes: [StrataError.Code?] = []
        for (key, download) in [("link", link), ("folder", tree), ("pipe", pipe)] {
            codes.append(
                #expect(throws: StrataError.self) {
                    try provider.store(objectAt: download, key: key, headers: [:])
                }?.code
            )
        }

        // Then each is refused as an invalid argument before anything is copied: the checkout folder and the store
        // are empty, and the link, its target and the folder are as they were
        #expect(codes == [.invalidArgument, .invalidArgument, .invalidArgument])
        #expect(try checkoutFolderItems(provider) == [])
        #expect(provider.store.count == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == secret.path)
        #expect(try Data(contentsOf: secret) == Data("secret".utf8))
        #expect(try Data(contentsOf: tree.appendingPathComponent("inner.txt")) == Data("inner".utf8))
    }

    /// A folder at a key's checkout name (a sync client's, a user's: the name is computable) is set aside by a rename,
    /// never deleted, whether a store or a lookup meets it, and the key's file is handed out. (The rename over it
    /// failed: the store threw `io` with the download stored, and every later lookup of the key failed.)
    @Test func aFolderAtACheckoutNameIsSetAsideAndTheKeyIsStillHandedOut() throws {
        // Given a folder holding a user's file at the checkout name of `k`
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let name = FileCacheProvider.checkoutName("k")
        let blocker = provider.checkoutFolder.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        try Data("user".utf8).write(to: blocker.appendingPathComponent("user.txt"))

        // When a download of `k` is stored, and a folder is again put at its checkout's name before a lookup
        let stored = try store(Data("v1".utf8), key: "k", in: provider, folder)
        try FileManager.default.removeItem(at: stored)
        try FileManager.default.createDirectory(at: stored, withIntermediateDirectories: false)
        try Data("again".utf8).write(to: stored.appendingPathComponent("again.txt"))
        let found = try provider.cachedItem(key: "k")

        // Then the checkout is handed out both times, and both folders were set aside with the files they held
        #expect(found == stored)
        #expect(try Data(contentsOf: found) == Data("v1".utf8))
        let aside = try checkoutFolderItems(provider).filter { $0 != name }
        #expect(aside.count == 2)
        let kept = try aside.flatMap { item in
            let path = provider.checkoutFolder.appendingPathComponent(item).path
            return try FileManager.default.contentsOfDirectory(atPath: path)
        }
        #expect(kept.sorted() == ["again.txt", "user.txt"])
    }

    /// Two stores of one key from two threads at once, 100 times: the checkout handed out afterwards always holds
    /// the version whose `ETag` the provider sends back. (The move into the store and the checkout's rename were
    /// two steps: interleaved, the first store renamed its bytes over the second's checkout and recorded the
    /// second's version for them, so they passed for current, and a 304 "renewed" the wrong bytes.)
    @Test(.timeLimit(.minutes(1))) func concurrentStoresOfOneKeyHandOutTheVersionTheyName() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let versions = [Data(repeating: 1, count: 3_000), Data(repeating: 2, count: 4_000)]
        for round in 0..<100 {
            let downloads = versions.indices.map { folder.url.appendingPathComponent("download-\(round)-\($0)") }
            for (body, url) in zip(versions, downloads) { try body.write(to: url) }
            DispatchQueue.concurrentPerform(iterations: versions.count) { index in
                _ = try? provider.store(
                    objectAt: downloads[index],
                    key: "k",
                    headers: ["ETag": "\"\(versions[index].count)\""]
                )
            }
            let eTag = try #require(provider.headerValues(for: "k")["If-None-Match"])
            let handedOut = try Data(contentsOf: provider.cachedItem(key: "k"))
            #expect(eTag == "\"\(handedOut.count)\"", "round \(round)")
        }
    }
}
