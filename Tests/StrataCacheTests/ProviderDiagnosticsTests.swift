import Foundation
import Strata
import StrataCache
import StrataFile
import StrataTestSupport
import Testing

/// The store's diagnostics closure, called while `FileCacheProvider.store(objectAt:key:headers:)` moves a download
/// into the store, may call the provider: the provider holds no lock of its checkouts then.
struct ProviderDiagnosticsTests {
    /// The provider under test, for the store's diagnostics closure made before it.
    private final class ProviderBox: Sendable {
        private let provider = Locked<FileCacheProvider?>(nil)
        private let found = Locked<[URL?]>([])

        var lookups: [URL?] { found.withLock { $0 } }

        func hold(_ provider: FileCacheProvider) { self.provider.withLock { $0 = provider } }

        /// Looks up `other` through the provider, from within the closure.
        func record(_ report: StrataError) {
            guard let provider = provider.withLock({ $0 }) else { return }
            let url = provider.find(key: "other")
            found.withLock { $0.append(url) }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func theStoresDiagnosticsMayCallTheProviderDuringAStore() throws {
        // Given a provider over a store whose closure calls the provider, and a folder in the way of `k`'s entry file
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let box = ProviderBox()
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", diagnostics: box.record)
        )
        let provider = try FileCacheProvider(store: store)
        box.hold(provider)
        _ = try provider.store(objectAt: try download(Data("other".utf8), in: folder), key: "other", headers: [:])
        try putAFolderInTheWayOfK(provider, store, in: folder)

        // When a download of `k` is stored, and the store reports the folder it set aside
        let checkout = try provider.store(objectAt: try download(Data("v2".utf8), in: folder), key: "k", headers: [:])

        // Then the closure's lookup through the provider returned, and the download is stored
        #expect(box.lookups.count == 1)
        #expect(box.lookups.first??.lastPathComponent == provider.find(key: "other")?.lastPathComponent)
        #expect(try Data(contentsOf: checkout) == Data("v2".utf8))
    }

    /// The provider under test, for a diagnostics closure that stores a download into it, once.
    private final class StoringBox: Sendable {
        private let provider = Locked<FileCacheProvider?>(nil)
        private let stored = Locked<[URL?]>([])
        private let download: URL

        /// The checkouts the closure's stores returned; `nil` for one that failed.
        var outcomes: [URL?] { stored.withLock { $0 } }

        /// A box whose closure stores the file at `download` under the key `from-closure`.
        init(download: URL) { self.download = download }

        func hold(_ provider: FileCacheProvider) { self.provider.withLock { $0 = provider } }

        /// Stores the download through the provider, from within the closure, at the first report only.
        func record(_ report: StrataError) {
            guard let provider = provider.withLock({ $0 }), outcomes.isEmpty else { return }
            let checkout = try? provider.store(objectAt: download, key: "from-closure", headers: [:])
            stored.withLock { $0.append(checkout) }
        }
    }

    /// Before, the store's move ran under the provider's lock of stores, which the closure's own store waited for: the
    /// store never returned.
    @Test(.timeLimit(.minutes(1)))
    func theStoresDiagnosticsMayStoreIntoTheProviderDuringAStore() throws {
        // Given a provider over a store whose closure stores into the provider, and a folder in the way of `k`'s
        // entry file
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let box = StoringBox(download: try download(Data("from the closure".utf8), in: folder))
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", diagnostics: box.record)
        )
        let provider = try FileCacheProvider(store: store)
        try putAFolderInTheWayOfK(provider, store, in: folder)
        box.hold(provider)

        // When a download of `k` is stored, and the store reports the folder it set aside
        let checkout = try provider.store(objectAt: try download(Data("v2".utf8), in: folder), key: "k", headers: [:])

        // Then the closure's store returned, both downloads are stored and handed out
        #expect(box.outcomes.count == 1)
        let fromClosure = try #require(box.outcomes.first ?? nil)
        #expect(try Data(contentsOf: fromClosure) == Data("from the closure".utf8))
        #expect(try Data(contentsOf: checkout) == Data("v2".utf8))
        #expect(store.value(forKey: "from-closure") == Data("from the closure".utf8))
    }

    /// Stores `k` once to learn its entry file's name, removes it, and makes a folder there: the store's next write
    /// of `k` sets the folder aside and reports it.
    private func putAFolderInTheWayOfK(
        _ provider: FileCacheProvider,
        _ store: FileDataSource,
        in folder: TemporaryFolder
    ) throws {
        let before = Set(folder.contents("assets"))
        _ = try provider.store(objectAt: try download(Data("v1".utf8), in: folder), key: "k", headers: [:])
        let entryOfK = try #require(Set(folder.contents("assets")).subtracting(before).first)
        try store.removeValue(forKey: "k")
        let blocker = folder.url.appendingPathComponent("assets").appendingPathComponent(entryOfK)
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
    }

    /// A finished download: a file of `bytes` in `folder`.
    private func download(_ bytes: Data, in folder: TemporaryFolder) throws -> URL {
        let url = folder.url.appendingPathComponent("download-\(UUID().uuidString)")
        try bytes.write(to: url)
        return url
    }
}
