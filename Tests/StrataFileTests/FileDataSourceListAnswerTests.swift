import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataFile

/// A file store as a repository's cache answers a listing only from a stored list answer it still holds whole: an
/// entry the store drops on its own, by any path, takes the answer with it.
struct FileDataSourceListAnswerTests {
    /// A store keyed by the first character of each value, in `folder`.
    private static func makeStore(_ folder: TemporaryFolder) throws -> FileDataSource {
        try FileDataSource(
            configuration: .init(
                location: .url(folder.url),
                identifier: "store",
                key: { String(decoding: $0.prefix(1), as: UTF8.self) }
            )
        )
    }

    /// A repository over a keyed store whose main holds `a1` and `b1`, after a listing stored main's answer.
    private static func listed(in folder: TemporaryFolder) async throws -> (
        repository: CacheRepository<ScriptedDataSource<Data>, FileDataSource>,
        main: ScriptedDataSource<Data>,
        cache: FileDataSource
    ) {
        let cache = try makeStore(folder)
        let main = ScriptedDataSource(["a": Data("a1".utf8), "b": Data("b1".utf8)])
        let repository = CacheRepository(main: main, cache: cache)
        _ = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
        #expect(cache.storedListAnswer.isStored)
        return (repository, main, cache)
    }

    /// Before, a single-key read that found an entry's file deleted behind the store's back forgot the entry but
    /// kept the stored answer, and the next listing served what was left as every entry: main was not asked.
    @Test func anEntryAReadFindsMissingTakesTheStoredAnswerWithIt() async throws {
        let folder = try TemporaryFolder()
        let (repository, main, cache) = try await Self.listed(in: folder)
        try FileManager.default.removeItem(
            at: folder.storeURL().appendingPathComponent(EntryName(key: "b").fileName)
        )
        #expect(cache.value(forKey: "b") == nil)

        let again = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)

        #expect(Set(again) == [Data("a1".utf8), Data("b1".utf8)])
        #expect(main.callCount(.getAll) == 2, "the store lost an entry of the answer: the list is main's again")
    }

    /// Before, a renewal that found another file than the store's own at an entry's name forgot the entry but kept
    /// the stored answer.
    @Test func anEntryARenewalDropsTakesTheStoredAnswerWithIt() async throws {
        let folder = try TemporaryFolder()
        let (_, _, cache) = try await Self.listed(in: folder)
        // A copy of the entry restored over it: the same bytes, another file.
        let file = folder.storeURL().appendingPathComponent(EntryName(key: "b").fileName)
        let copy = folder.url.appendingPathComponent("copy")
        try Data(contentsOf: file).write(to: copy)
        #expect(rename(copy.path, file.path) == 0)

        #expect(throws: StrataError.self) { try cache.renewMetadata(EntryMetadata(), forKey: "b") }

        #expect(cache.value(forKey: "b") == nil)
        #expect(!cache.storedListAnswer.isStored, "the answer went with its entry")
    }
}
