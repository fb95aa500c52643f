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

    /// Every name in the checkout folder, hidden ones (staged copies) included.
    private func checkoutFolderItems(_ provider: FileCacheProvider) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: provider.checkoutFolder.path).sorted()
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
}
