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
}
