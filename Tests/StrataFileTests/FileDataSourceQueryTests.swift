import Foundation
import Strata
import StrataFile
import StrataTesting
import Testing

struct FileDataSourceQueryTests {
    private func filledStore(_ folder: TemporaryFolder, clock: ManualClock = ManualClock()) throws -> FileDataSource {
        let store = try folder.makeStore(clock: clock)
        for key in ["delta", "alpha", "charlie", "bravo", "echo"] { try store.setValue(Data(key.utf8), forKey: key) }
        return store
    }

    @Test func answersKeyedQueries() async throws {
        let folder = try TemporaryFolder()
        let store = try filledStore(folder)

        #expect(try await store.get(KeyQuery("alpha")) == Data("alpha".utf8))
        await #expect {
            _ = try await store.get(KeyQuery("zulu"))
        } throws: { ($0 as? StrataError)?.code == .notFound }
    }

    @Test func answersIdQueriesByTheIdentifiersDescription() async throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        _ = try await store.put(Data("forty-two".utf8), in: IdQuery(42))

        #expect(try await store.get(KeyQuery("42")) == Data("forty-two".utf8))
    }

    @Test func answersMultiKeyedQueriesInTheirOrder() async throws {
        let folder = try TemporaryFolder()
        let store = try filledStore(folder)

        let values = try await store.getAll(IdsQuery(["echo", "alpha"]))

        #expect(values == [Data("echo".utf8), Data("alpha".utf8)])
        await #expect {
            _ = try await store.getAll(IdsQuery(["echo", "zulu"]))
        } throws: { ($0 as? StrataError)?.code == .notFound }
    }

    @Test func answersAllObjectsInKeyOrder() async throws {
        let folder = try TemporaryFolder()
        let store = try filledStore(folder)

        let values = try await store.getAll(AllObjectsQuery())

        #expect(values.map { String(decoding: $0, as: UTF8.self) } == ["alpha", "bravo", "charlie", "delta", "echo"])
    }

    @Test(arguments: [(0, 2, ["alpha", "bravo"]), (2, 2, ["charlie", "delta"]), (4, 10, ["echo"]), (9, 3, [])])
    func answersPagesInKeyOrder(offset: Int, limit: Int, expected: [String]) async throws {
        let folder = try TemporaryFolder()
        let store = try filledStore(folder)

        let page = try await store.getAll(PaginationOffsetLimitQuery(offset: offset, limit: limit))

        #expect(page.map { String(decoding: $0, as: UTF8.self) } == expected)
    }

    @Test func refusesQueriesItDoesNotKnow() async throws {
        let folder = try TemporaryFolder()
        let store = try filledStore(folder)

        for attempt in 0..<4 {
            await #expect {
                switch attempt {
                case 0: _ = try await store.get(UnknownQuery())
                case 1: _ = try await store.getAll(UnknownQuery())
                case 2: _ = try await store.put(Data(), in: AllObjectsQuery())
                default: try await store.delete(UnknownQuery())
                }
            } throws: { ($0 as? StrataError)?.code == .queryNotSupported }
        }
    }

    @Test func putsAndDeletesThroughTheProtocol() async throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()

        _ = try await store.putAll([Data("1".utf8), Data("2".utf8)], in: IdsQuery(["one", "two"]))
        #expect(store.sortedKeys() == ["one", "two"])
        try await store.delete(KeyQuery("one"))
        #expect(store.sortedKeys() == ["two"])
        _ = try await store.put(Data("3".utf8), in: KeyQuery("three"))
        try await store.delete(IdsQuery(["three"]))
        #expect(store.sortedKeys() == ["two"])
        try await store.delete(AllObjectsQuery())
        #expect(store.sortedKeys().isEmpty)
        await #expect {
            _ = try await store.putAll([Data()], in: IdsQuery(["a", "b"]))
        } throws: { ($0 as? StrataError)?.code == .invalidArgument }
    }

    @Test func entriesCarryTheirWriteDateForStoredTimeValidation() async throws {
        let clock = ManualClock()
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(clock: clock)
        let written = clock.now()
        try store.setValue(Data("v".utf8), forKey: "k")
        clock.advance(by: .seconds(30))

        let entry = try await store.getEntry(KeyQuery("k"))
        let entries = try await store.getAllEntries(AllObjectsQuery())

        #expect(entry.storedAt == written)
        #expect(entries.map(\.storedAt) == [written])
        let validated = store.validated(by: .maxAge(.seconds(10), clock: clock))
        await #expect {
            _ = try await validated.get(KeyQuery("k"))
        } throws: { ($0 as? StrataError)?.code == .notValid }
    }
}
