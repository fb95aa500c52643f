import Foundation
import Strata
import StrataTesting
import Testing

struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

struct MapperTests {
    @Test func aDataSourceOfJSONServesCodableValuesBothWays() async throws {
        let raw = ScriptedDataSource<Data>()
        let users = raw.decoding(User.self)
        let stored = try await users.put(User(id: 1, name: "Ada"), in: IdQuery(1))
        #expect(stored == User(id: 1, name: "Ada"))
        #expect(try await users.get(IdQuery(1)) == User(id: 1, name: "Ada"))
        let json = try #require(raw.contents["1"])
        #expect(String(decoding: json, as: UTF8.self).contains("\"Ada\""))
    }

    @Test func undecodableDataIsADataSerializationError() async throws {
        let raw = ScriptedDataSource<Data>(["1": Data("not json".utf8)])
        let error = await #expect(throws: StrataError.self) { try await raw.decoding(User.self).get(IdQuery(1)) }
        #expect(error?.code == .dataSerialization)
        #expect(error?.underlying is DecodingError)
    }

    @Test func aSourcesOwnErrorsPassThroughAMapperUnchanged() async throws {
        let raw = ScriptedDataSource<Data>()
        let error = await #expect(throws: StrataError.self) { try await raw.decoding(User.self).get(IdQuery(9)) }
        #expect(error?.code == .notFound)
    }

    @Test func closureMappersWorkAroundARepository() async throws {
        let harness = Harness(main: ["1": "42"])
        let numbers = harness.repository().mapped(
            to: ClosureMapper { (text: String) in
                guard let number = Int(text) else { throw StrataError(.dataSerialization, "not a number") }
                return number
            },
            from: ClosureMapper { (number: Int) in String(number) }
        )
        #expect(try await numbers.get(IdQuery(1), operation: .mainSync) == 42)
        #expect(try await numbers.put(7, in: IdQuery(2), operation: .mainSync) == 7)
        #expect(harness.cacheStore.contents["2"] == "7")
        harness.mainStore.script(.get, .value("x"))
        let error = await #expect(throws: StrataError.self) { try await numbers.get(IdQuery(1), operation: .main) }
        #expect(error?.code == .dataSerialization)
    }

    @Test func aMappedSourceKeepsStoredDatesForValidation() async throws {
        let clock = ManualClock()
        let source = EntryDatedSource(clock: clock)
        let lengths = source.mapped(to: { $0.count }, from: { String(repeating: "x", count: $0) })
        _ = try await lengths.put(3, in: KeyQuery("k"))
        let validated = lengths.validated(by: .maxAge(.seconds(10), clock: clock))
        #expect(try await validated.get(KeyQuery("k")) == 3)
        clock.advance(by: .seconds(10))
        await #expect(throws: StrataError.self) { try await validated.get(KeyQuery("k")) }
    }

    /// Before, a mapper let a *not valid* error through with the wrapped source's stale entry: of the wrong type, it
    /// was no stale value at all, and a repository could neither serve nor revalidate it.
    @Test func aValidatedSourceBehindAMapperStillOffersItsStaleValue() async throws {
        let clock = ManualClock()
        let source = EntryDatedSource(clock: clock)
        _ = try await source.put("abc", in: KeyQuery("k"))
        let lengths = source.validated(by: .maxAge(.seconds(10), clock: clock))
            .mapped(to: { $0.count }, from: { String(repeating: "x", count: $0) })
        clock.advance(by: .seconds(20))

        let error = await #expect(throws: StrataError.self) { try await lengths.getEntry(KeyQuery("k")) }
        #expect(error?.code == .notValid)
        #expect(error?.staleEntry(as: Int.self)?.value == 3)
        #expect(error?.staleSince != nil)
        let listError = await #expect(throws: StrataError.self) { try await lengths.getAll(IdsQuery(["k"])) }
        #expect(listError?.value(as: [Int].self) == [3], "\(String(describing: listError))")

        // And a repository over it serves the stale value when asked to
        let repository = CacheRepository(main: ScriptedDataSource<Int>(), cache: lengths)
        #expect(try await repository.get(KeyQuery("k"), operation: .cacheIgnoringValidation) == 3)
    }

    /// Before, only a *not valid* error's value was converted: main's value in `cacheSyncFailed` stayed of the wrapped
    /// type, and `value(as:)` found nothing.
    @Test func aMappedRepositoryConvertsTheValueEveryErrorCarries() async throws {
        let harness = Harness(main: ["1": "42", "2": "43"])
        harness.cacheStore.script(.put, .failure(StrataError(.io, "disk full")))
        let numbers = harness.repository().mapped(
            to: ClosureMapper { (text: String) in Int(text) ?? -1 },
            from: ClosureMapper { (number: Int) in String(number) }
        )

        let error = await #expect(throws: StrataError.self) { try await numbers.get(IdQuery(1), operation: .mainSync) }
        #expect(error?.code == .cacheSyncFailed)
        #expect(error?.value(as: Int.self) == 42)

        // And so do writes: main's value in `cacheSyncFailed`, through a mapped repository and a mapped source
        harness.cacheStore.fail(.put, with: StrataError(.io, "disk full"))
        harness.cacheStore.fail(.putAll, with: StrataError(.io, "disk full"))
        let putError = await #expect(throws: StrataError.self) {
            try await numbers.put(7, in: IdQuery(1), operation: .mainSync)
        }
        #expect(putError?.code == .cacheSyncFailed)
        #expect(putError?.value(as: Int.self) == 7)
        let source = harness.repository().asDataSource(operation: .mainSync).mapped(
            to: ClosureMapper { (text: String) in Int(text) ?? -1 },
            from: ClosureMapper { (number: Int) in String(number) }
        )
        let sourceError = await #expect(throws: StrataError.self) { try await source.putAll([8], in: IdsQuery([1])) }
        #expect(sourceError?.code == .cacheSyncFailed)
        #expect(sourceError?.value(as: [Int].self) == [8])
    }
}
