import Foundation
import Strata
import StrataJSONFile
import StrataTesting
import Testing

struct JSONFileDataSourceQueryTests {
    @Test func keyedQueriesReadWhatWasPut() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixture(folder: folder).open()
            let stored = try await store.put(Item(name: "a", number: 1), in: KeyQuery("a"))
            #expect(stored == Item(name: "a", number: 1))
            _ = try await store.put(Item(name: "42", number: 42), in: IdQuery(42))
            #expect(try await store.get(KeyQuery("a")) == Item(name: "a", number: 1))
            #expect(try await store.get(IdQuery(42)) == Item(name: "42", number: 42))
            #expect(try await store.get(KeyQuery("42")) == Item(name: "42", number: 42))
        }
    }

    @Test func missingKeyIsNotFound() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixture(folder: folder).open()
            await expectError(.notFound) { try await store.get(KeyQuery("nope")) }
            #expect(try store.value(forKey: "nope") == nil)
        }
    }

    @Test func idsQueryAnswersInItsOrderAndFailsOnAMissingKey() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixture(folder: folder).open()
            let items = [3, 1, 2].map { Item(name: "\($0)", number: $0) }
            _ = try await store.putAll(items, in: IdsQuery([3, 1, 2]))
            #expect(try await store.getAll(IdsQuery([2, 3, 1])).map(\.number) == [2, 3, 1])
            await expectError(.notFound) { try await store.getAll(IdsQuery([1, 9])) }
        }
    }

    @Test func allObjectsAndPagesFollowKeyOrder() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixture(folder: folder).open()
            let names = ["delta", "alpha", "echo", "charlie", "bravo"]
            for (number, name) in names.enumerated() {
                try store.setValue(Item(name: name, number: number), forKey: name)
            }
            // Reads change the LRU order but not the listing order.
            _ = try store.value(forKey: "echo")

            let sorted = names.sorted()
            #expect(try await store.getAll(AllObjectsQuery()).map(\.name) == sorted)
            #expect(
                try await store.getAll(PaginationOffsetLimitQuery(offset: 0, limit: 2)).map(\.name) == [
                    "alpha", "bravo",
                ]
            )
            #expect(
                try await store.getAll(PaginationOffsetLimitQuery(offset: 2, limit: 2)).map(\.name) == [
                    "charlie", "delta",
                ]
            )
            #expect(try await store.getAll(PaginationOffsetLimitQuery(offset: 4, limit: 2)).map(\.name) == ["echo"])
            #expect(try await store.getAll(PaginationOffsetLimitQuery(offset: 5, limit: 2)).isEmpty)
            #expect(store.sortedKeys() == sorted)
        }
    }

    @Test func putAllOfAllObjectsUsesTheKeyFunction() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            _ = try await store.putAll([Item(name: "y", number: 2), Item(name: "x", number: 1)], in: AllObjectsQuery())
            #expect(try await store.get(KeyQuery("x")).number == 1)
            #expect(try await store.getAll(AllObjectsQuery()).map(\.name) == ["x", "y"])

            var configuration = fixture.configuration()
            configuration.key = nil
            configuration.folder = folder.appendingPathComponent("keyless")
            let keyless = try JSONFileDataSource<Item>(configuration: configuration)
            await expectError(.queryNotSupported) {
                try await keyless.putAll([Item(name: "z", number: 0)], in: AllObjectsQuery())
            }
            await expectError(.invalidArgument) { try await keyless.putAll([], in: IdsQuery([1])) }
        }
    }

    @Test func deleteRemovesOneSeveralOrAll() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            for number in 1...5 { try store.setValue(Item(name: "\(number)", number: number), forKey: "\(number)") }

            try await store.delete(IdQuery(1))
            try await store.delete(IdsQuery([2, 3, 99]))
            #expect(store.sortedKeys() == ["4", "5"])

            try await store.delete(AllObjectsQuery())
            #expect(store.count == 0)
            #expect(try fixture.files() == [".strata-lock", ".strata-store", "index.journal"])
            // Deleting what is not there succeeds.
            try await store.delete(KeyQuery("4"))
        }
    }

    @Test func unsupportedQueriesThrowQueryNotSupported() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixture(folder: folder).open()
            let item = Item(name: "a", number: 1)
            await expectError(.queryNotSupported) { try await store.get(UnknownQuery()) }
            await expectError(.queryNotSupported) { try await store.get(AllObjectsQuery()) }
            await expectError(.queryNotSupported) { try await store.getAll(UnknownQuery()) }
            await expectError(.queryNotSupported) { try await store.put(item, in: AllObjectsQuery()) }
            await expectError(.queryNotSupported) { try await store.putAll([item], in: UnknownQuery()) }
            await expectError(.queryNotSupported) { try await store.delete(UnknownQuery()) }
        }
    }

    @Test func entriesCarryTheirStoredDate() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            let storedAt = fixture.clock.now()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            fixture.clock.advance(by: .seconds(30))
            #expect(try await store.getEntry(KeyQuery("a")).storedAt == storedAt)
            #expect(try await store.getAllEntries(AllObjectsQuery()).map(\.storedAt) == [storedAt])
        }
    }

    @Test func aValueThatCannotBeEncodedIsADataSerializationErrorAndWritesNothing() async throws {
        struct Measure: Codable, Sendable {
            var value: Double
        }
        try await withTemporaryFolder { folder in
            let store = try JSONFileDataSource<Measure>(folder: folder)
            await expectError(.dataSerialization) { try store.setValue(Measure(value: .nan), forKey: "m") }
            #expect(store.count == 0)
        }
    }

    @Test func anUnwritableFolderIsAnIOError() async throws {
        try await withTemporaryFolder { folder in
            // A regular file where the store's folder should be.
            let file = folder.appendingPathComponent("file")
            try Data("x".utf8).write(to: file)
            do {
                _ = try JSONFileDataSource<Item>(folder: file)
                Issue.record("Opening a store over a file succeeded")
            } catch let error as StrataError {
                #expect(error.code == .io)
                #expect(error.underlying != nil)
            }
        }
    }
}
