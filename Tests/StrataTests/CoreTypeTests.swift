import Strata
import StrataTesting
import Testing

struct QueryTests {
    @Test func idAndKeyQueriesNameTheSameEntry() {
        #expect(IdQuery(42).key == KeyQuery("42").key)
        #expect(IdsQuery([1, 2]).keys == ["1", "2"])
        let literal: KeyQuery = "user-1"
        #expect(literal.key == "user-1")
    }

    @Test func paginationClampsItsBounds() {
        let page = PaginationOffsetLimitQuery(offset: -5, limit: 0)
        #expect(page.offset == 0)
        #expect(page.limit == 1)
    }
}

struct StrataErrorTests {
    @Test func codesCompareAndDescribeThemselves() {
        let error = StrataError.remote(.unexpectedResponse, "Server error", status: 503, isRetryable: true)
        #expect(error.code == .unexpectedResponse)
        #expect(error.code != .network)
        #expect(error.description.contains("unexpectedResponse"))
        #expect(error.description.contains("503"))
        #expect(error.isRetryable)
    }

    @Test func networkErrorsAreRetryableByDefaultAndMissesAreNot() {
        #expect(StrataError(.network, "reset").isRetryable)
        #expect(!StrataError.notFound().isRetryable)
        #expect(StrataError.notFound().isMiss)
        #expect(StrataError.notValid(staleValue: 1).isMiss)
    }

    @Test func serializationKeepsAStrataErrorAsItIs() {
        let original = StrataError(.io, "disk")
        #expect(StrataError.serialization(original).code == .io)
    }
}

struct SingleDataSourceRepositoryTests {
    @Test func everyOperationGoesToTheOneSource() async throws {
        let source = ScriptedDataSource(["1": "a"])
        let repository = SingleDataSourceRepository(source)
        for operation: any RepositoryOperation in [.main, .cache, .cacheSync, .mainSync, UnknownOperation()] {
            #expect(try await repository.get(IdQuery(1), operation: operation) == "a")
        }
        try await repository.delete(IdQuery(1), operation: .cache)
        #expect(source.contents.isEmpty)
    }

    @Test func assemblersEraseAndRecombineParts() async throws {
        let source = ScriptedDataSource(["1": "a"])
        let erased: AnyDataSource<String> = DataSourceAssembler(get: source, put: source, delete: source)
        #expect(try await erased.get(IdQuery(1)) == "a")
        let repository = RepositoryAssembler(SingleDataSourceRepository(erased))
        _ = try await repository.put("b", in: IdQuery(2))
        #expect(source.contents["2"] == "b")
        let error = await #expect(throws: StrataError.self) { try await repository.get(SearchQuery(text: "x")) }
        #expect(error?.code == .queryNotSupported)
    }
}

struct PaginationTests {
    @Test(arguments: [
        (0, 2, [0, 1]), (3, 2, [3, 4]), (4, 5, [4]), (5, 1, []), (Int.max, Int.max, []), (1, Int.max, [1, 2, 3, 4]),
    ])
    func aPageIsASliceOfTheStableOrder(offset: Int, limit: Int, expected: [Int]) {
        #expect(Array(PaginationOffsetLimitQuery(offset: offset, limit: limit).page(of: [0, 1, 2, 3, 4])) == expected)
    }
}
