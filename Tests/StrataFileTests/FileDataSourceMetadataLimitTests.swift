import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataFile

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `maximumMetadataSize`: the store keeps every entry's key and metadata in memory, so what it holds of them is
/// bounded — a folder of entries whose keys take more (planted there, each key up to 16 MiB) is not opened and not
/// changed, writes past the limit evict the least recently used, and an entry whose metadata alone is larger is
/// refused.
struct FileDataSourceMetadataLimitTests {
    /// A key of `length` bytes, told apart by `index`.
    private func longKey(_ index: Int, length: Int) -> String {
        "k\(index)-" + String(repeating: "x", count: length - "k\(index)-".utf8.count)
    }

    private func makeStore(
        _ folder: TemporaryFolder,
        maximumMetadataSize: Int? = nil,
        observer: EvictionRecorder? = nil
    ) throws -> FileDataSource {
        var configuration = FileDataSource.Configuration(location: .url(folder.url), identifier: "store")
        if let maximumMetadataSize { configuration.maximumMetadataSize = maximumMetadataSize }
        configuration.evictionObserver = observer
        return try FileDataSource(configuration: configuration)
    }

    /// Writes at the entry name of `key` a file of the byte 7 followed by a sealed trailer for it with `contentHash`
    /// (the byte's, taken from a store): an entry as a store writes it, made without one.
    private func plantEntry(_ key: String, contentHash: UInt64, in folder: TemporaryFolder) throws {
        let url = folder.storeURL().appendingPathComponent(EntryName(key: key).fileName)
        let trailer = EntryTrailer(
            key: key,
            eTag: nil,
            lastModified: nil,
            payloadSize: 1,
            contentHash: contentHash,
            writeSequence: 1,
            created: Date(timeIntervalSince1970: 1_000),
            expiresAt: nil
        )
        try Data([7] + trailer.encoded()).write(to: url)
    }

    @Test func aFolderOfEntriesWithLongKeysIsNotOpenedPastTheLimitNorChanged() throws {
        // Given a store folder where 12 entries with keys of 1 MiB were planted beside one the store wrote
        let folder = try TemporaryFolder()
        let contentHash: UInt64
        do {
            let store = try makeStore(folder)
            try store.setValue(Data([7]), forKey: "own")
            contentHash = try #require(store.info(forKey: "own")?.contentHash)
        }
        let keys = (0..<12).map { longKey($0, length: 1 << 20) }
        for key in keys { try plantEntry(key, contentHash: contentHash, in: folder) }
        let before = try snapshot(folder.storeURL())

        // When a store with a limit of 4 MiB of keys and metadata opens on it
        let refusal = #expect(throws: StrataError.self) { try makeStore(folder, maximumMetadataSize: 4 << 20) }

        // Then it refuses with a typed error that names the limit, and every file stays as it was
        #expect(refusal?.code == .tooLarge)
        #expect(refusal?.message.contains("maximumMetadataSize of \(4 << 20)") == true)
        #expect(try snapshot(folder.storeURL()) == before)

        // And a store with the default limit (256 MiB) opens on the same folder and finds every entry
        let store = try makeStore(folder)
        #expect(store.count == 13)
        #expect(store.value(forKey: keys[5]) == Data([7]))
        #expect(store.value(forKey: "own") == Data([7]))
        #expect(store.metadataSize > 12 << 20)
    }

    @Test func writesPastTheLimitEvictTheLeastRecentlyUsed() throws {
        // Given a store whose limit holds the metadata of three entries under keys of 1,000 bytes
        let folder = try TemporaryFolder()
        let recorder = EvictionRecorder()
        let keys = (0..<4).map { longKey($0, length: 1_000) }
        let store = try makeStore(folder, maximumMetadataSize: 3_300, observer: recorder)
        for key in keys.prefix(3) { try store.setValue(Data("v".utf8), forKey: key) }
        let three = store.metadataSize
        #expect(three > 3_000 && three <= 3_300)
        // (the first is read, so the second is the least recently used)
        #expect(store.value(forKey: keys[0]) == Data("v".utf8))

        // When a fourth is written
        try store.setValue(Data("v".utf8), forKey: keys[3])

        // Then the least recently used goes, reported as over a size limit, and the store is within its limit
        #expect(recorder.summary == ["\(keys[1]): sizeLimit"])
        #expect(store.count == 3)
        #expect(store.metadataSize == three)
        #expect(store.value(forKey: keys[1]) == nil)
        #expect(try folder.entryFiles().count == 3)

        // And a store opened on the folder with the same limit opens
        _ = consume store
        #expect(try makeStore(folder, maximumMetadataSize: 3_300).count == 3)
    }

    @Test func aRenewalThatGrowsTheMetadataPastTheLimitEvictsTheLeastRecentlyUsed() throws {
        // Given a store whose limit holds three entries under keys of 1,000 bytes, with 200 bytes to spare
        let folder = try TemporaryFolder()
        let recorder = EvictionRecorder()
        let keys = (0..<3).map { longKey($0, length: 1_000) }
        let store = try makeStore(folder, maximumMetadataSize: 3_450, observer: recorder)
        for key in keys { try store.setValue(Data("v".utf8), forKey: key) }

        // When the newest is renewed with 400 bytes of tags
        let tags: Set<String> = ["t-" + String(repeating: "a", count: 398)]
        #expect(try store.renewMetadata(EntryMetadata(tags: tags), forKey: keys[2]))

        // Then the least recently used goes, and the store is within its limit, so that it opens with it again
        #expect(recorder.summary == ["\(keys[0]): sizeLimit"])
        #expect(store.metadataSize <= 3_450)
        #expect(store.entry(forKey: keys[2])?.metadata.tags == tags)
        _ = consume store
        #expect(try makeStore(folder, maximumMetadataSize: 3_450).count == 2)
    }

    @Test func anEntryWhoseMetadataAloneExceedsTheLimitIsRefused() throws {
        // Given a store whose limit is 500 bytes of keys and metadata, holding one entry, and a file to move in
        let folder = try TemporaryFolder()
        let store = try makeStore(folder, maximumMetadataSize: 500)
        try store.setValue(Data("small".utf8), forKey: "small")
        let outside = folder.url.appendingPathComponent("download")
        try Data("body".utf8).write(to: outside)

        // When an entry under a key of 1,000 bytes is written, and the file is moved in under it
        let key = longKey(0, length: 1_000)
        let written = #expect(throws: StrataError.self) { try store.setValue(Data("v".utf8), forKey: key) }
        let moved = #expect(throws: StrataError.self) { try store.move(fileAt: outside, forKey: key) }

        // Then both are refused as too large, and nothing else changes: the entry, and the caller's file
        #expect(written?.code == .tooLarge)
        #expect(moved?.code == .tooLarge)
        #expect(store.count == 1)
        #expect(store.value(forKey: "small") == Data("small".utf8))
        #expect(try Data(contentsOf: outside) == Data("body".utf8))
    }

    @Test func aLimitBelowOneIsRefused() throws {
        let folder = try TemporaryFolder()
        let refusal = #expect(throws: StrataError.self) { try makeStore(folder, maximumMetadataSize: 0) }
        #expect(refusal?.code == .invalidArgument)
    }
}
