import Strata
import StrataTesting
import Testing

/// A main source that, as it reads a post, writes the post's author into a store of authors (as an app normalises
/// what a server sends): user code that a stream's read calls.
private struct NormalisingPosts: GetDataSource {
    let authors: ObservableStore<String>

    func get(_ query: any Query) async throws -> String {
        _ = try await authors.put("Ada", in: KeyQuery("author"))
        return "post"
    }

    func getAll(_ query: any Query) async throws -> [String] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }
}

/// Before, a stream's whole read ran marked as the stream's own work, so a write the user's main source made inside
/// its `get` was hidden from every stream observer of the store it wrote: a screen observing the authors never saw the
/// author a post's stream wrote.
struct StreamUserWritesTests {
    @Test func aWriteAMainSourceMakesInsideAStreamsReadReachesOtherStreams() async throws {
        // Given a screen observing the authors, which has none yet
        let authors = ObservableStore<String>()
        let authorsRepository = SingleDataSourceRepository(authors)
        let authorScreen = Observation(authorsRepository.stream(KeyQuery("author"), bufferingNewest: 64))
        defer { authorScreen.task.cancel() }
        _ = try await authorScreen.wait(forCount: 2)

        // When another screen observes a post, whose read writes its author
        let posts = CacheRepository(main: NormalisingPosts(authors: authors), cache: ObservableStore<String>())
        let postScreen = Observation(posts.stream(KeyQuery("post"), operation: .mainSync, bufferingNewest: 64))
        defer { postScreen.task.cancel() }
        #expect(try await postScreen.wait { $0.value == "post" }.last == "value(post, main)")

        // Then the author screen reads the author written
        #expect(try await authorScreen.wait { $0.value == "Ada" }.last == "value(Ada, file)")
    }
}
