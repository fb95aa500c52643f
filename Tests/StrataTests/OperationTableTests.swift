import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

/// One row of the operation table of README.md and of ``CacheRepository``'s documentation: the text each states,
/// and the calls each scenario makes over two spies sharing a journal.
struct TableRow: Sendable, CustomTestStringConvertible {
    let operation: any RepositoryOperation
    /// The first cell in README.md.
    let readme: String
    /// The first cell in the doc comment.
    let symbol: String
    /// The GET, PUT and DELETE cells, the same in both documents.
    let cells: (get: String, put: String, delete: String)
    /// GET: the cache holds the value.
    let getHit: [String]
    /// GET: the cache is empty, main holds the value.
    let getMiss: [String]
    /// GET: the cache is empty, main fails; the calls made, and whether the read still succeeds.
    let getMainFails: [String]
    /// PUT: both sources succeed.
    let put: [String]
    /// PUT: main fails; the calls made, and whether the write still succeeds.
    let putMainFails: (calls: [String], succeeds: Bool)

    var testDescription: String { readme }

    /// The same row for `getAll` / `putAll` / `delete`.
    func renamed(_ trace: [String], _ method: String) -> [String] {
        trace.map {
            $0.replacingOccurrences(of: ".get", with: ".\(method)").replacingOccurrences(of: ".put", with: ".putAll")
        }
    }

    static let all: [TableRow] = [
        TableRow(
            operation: DefaultOperation(),
            readme: "`.default`",
            symbol: "``DefaultOperation``",
            cells: ("as `.cacheSync`", "as `.mainSync`", "as `.mainSync`"),
            getHit: ["cache.get"],
            getMiss: ["cache.get", "main.get", "cache.put"],
            getMainFails: ["cache.get", "main.get"],
            put: ["main.put", "cache.put"],
            putMainFails: (["main.put"], false)
        ),
        TableRow(
            operation: MainOperation(),
            readme: "`.main`",
            symbol: "``MainOperation``",
            cells: ("main", "main", "main"),
            getHit: ["main.get"],
            getMiss: ["main.get"],
            getMainFails: ["main.get"],
            put: ["main.put"],
            putMainFails: (["main.put"], false)
        ),
        TableRow(
            operation: MainSyncOperation(),
            readme: "`.mainSync`",
            symbol: "``MainSyncOperation``",
            cells: (
                "main, then its entry into the cache", "main, then the cache with main's value", "main, then the cache"
            ),
            getHit: ["main.get", "cache.put"],
            getMiss: ["main.get", "cache.put"],
            getMainFails: ["main.get"],
            put: ["main.put", "cache.put"],
            putMainFails: (["main.put"], false)
        ),
        TableRow(
            operation: CacheOperation(),
            readme: "`.cache`",
            symbol: "``CacheOperation``",
            cells: ("cache (`.cacheIgnoringValidation` serves stale values)", "cache", "cache"),
            getHit: ["cache.get"],
            getMiss: ["cache.get"],
            getMainFails: ["cache.get"],
            put: ["cache.put"],
            putMainFails: (["cache.put"], true)
        ),
        TableRow(
            operation: CacheSyncOperation(),
            readme: "`.cacheSync`",
            symbol: "``CacheSyncOperation``",
            cells: (
                "cache; on *not found* or *not valid* main, then its entry into the cache; other cache errors are thrown",
                "cache, then main with the cache's value", "cache, then main"
            ),
            getHit: ["cache.get"],
            getMiss: ["cache.get", "main.get", "cache.put"],
            getMainFails: ["cache.get", "main.get"],
            put: ["cache.put", "main.put"],
            // The cache's list answer would go after main failed (a delete of `StoredListAnswerQuery`), but this
            // repository never stored one: no call.
            putMainFails: (["cache.put", "main.put"], false)
        ),
    ]
}

/// The operation table, checked against what the plans do: both documents state each row, and each scenario
/// makes the calls in the order the row says.
struct OperationTableTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test(arguments: TableRow.all)
    func bothDocumentsStateTheRow(row: TableRow) throws {
        let cells = "| \(row.cells.get) | \(row.cells.put) | \(row.cells.delete) |"
        let readme = try String(contentsOf: Self.root.appending(path: "README.md"), encoding: .utf8)
        #expect(readme.contains("\n| \(row.readme) \(cells)\n"))
        let symbol = try String(
            contentsOf: Self.root.appending(path: "Sources/Strata/Repositories/CacheRepository.swift"),
            encoding: .utf8
        )
        #expect(symbol.contains("\n/// | \(row.symbol) \(cells)\n"))
    }

    @Test(arguments: TableRow.all)
    func getFollowsTheRow(row: TableRow) async throws {
        let hit = Harness(main: ["1": "main"], cache: ["1": "cached"])
        let value = try await hit.repository().get(IdQuery(1), operation: row.operation)
        #expect(hit.journal.trace == row.getHit)
        #expect(value == (row.getHit.first == "main.get" ? "main" : "cached"))

        let miss = Harness(main: ["1": "main"])
        let missed = await Result { try await miss.repository().get(IdQuery(1), operation: row.operation) }
        #expect(miss.journal.trace == row.getMiss)
        #expect((try? missed.get()) == (row.getMiss.contains("main.get") ? "main" : nil))

        let down = Harness()
        down.mainStore.script(.get, .failure(offline))
        await #expect(throws: StrataError.self) {
            try await down.repository().get(IdQuery(1), operation: row.operation)
        }
        #expect(down.journal.trace == row.getMainFails)
    }

    @Test(arguments: TableRow.all)
    func getAllFollowsTheRow(row: TableRow) async throws {
        let hit = Harness(main: ["1": "main"], cache: ["1": "cached"])
        _ = try await hit.repository().getAll(IdsQuery([1]), operation: row.operation)
        #expect(hit.journal.trace == row.renamed(row.getHit, "getAll"))

        let miss = Harness(main: ["1": "main"])
        _ = try? await miss.repository().getAll(IdsQuery([1]), operation: row.operation)
        #expect(miss.journal.trace == row.renamed(row.getMiss, "getAll"))

        let down = Harness()
        down.mainStore.script(.getAll, .failure(offline))
        _ = try? await down.repository().getAll(IdsQuery([1]), operation: row.operation)
        #expect(down.journal.trace == row.renamed(row.getMainFails, "getAll"))
    }

    @Test(arguments: TableRow.all)
    func putFollowsTheRow(row: TableRow) async throws {
        let harness = Harness()
        _ = try await harness.repository().put("v", in: IdQuery(1), operation: row.operation)
        #expect(harness.journal.trace == row.put)

        let down = Harness()
        down.mainStore.script(.put, .failure(offline))
        let result = await Result { try await down.repository().put("v", in: IdQuery(1), operation: row.operation) }
        #expect(down.journal.trace == row.putMainFails.calls)
        #expect(((try? result.get()) != nil) == row.putMainFails.succeeds)
    }

    @Test(arguments: TableRow.all)
    func putAllAndDeleteFollowTheRow(row: TableRow) async throws {
        let harness = Harness()
        _ = try await harness.repository().putAll(["v"], in: IdsQuery([1]), operation: row.operation)
        #expect(harness.journal.trace == row.put.map { $0.replacingOccurrences(of: ".put", with: ".putAll") })

        let deletes = Harness(main: ["1": "v"], cache: ["1": "v"])
        try await deletes.repository().delete(IdQuery(1), operation: row.operation)
        #expect(deletes.journal.trace == row.put.map { $0.replacingOccurrences(of: ".put", with: ".delete") })

        let down = Harness(main: ["1": "v"], cache: ["1": "v"])
        down.mainStore.script(.delete, .failure(offline))
        let result = await Result { try await down.repository().delete(IdQuery(1), operation: row.operation) }
        #expect(
            down.journal.trace == row.putMainFails.calls.map { $0.replacingOccurrences(of: ".put", with: ".delete") }
        )
        #expect(((try? result.get()) != nil) == row.putMainFails.succeeds)
    }

    @Test func cacheSyncServesTheStaleValueWhenMainFailsOnlyWithAFallback() async throws {
        for (operation, served) in [(CacheSyncOperation(fallback: { _ in true }), true), (.cacheSync, false)] {
            let harness = Harness()
            harness.cacheStore.script(.get, .failure(StrataError.notValid(staleValue: "stale")))
            harness.mainStore.script(.get, .failure(offline))
            let result = await Result { try await harness.repository().get(IdQuery(1), operation: operation) }
            #expect(harness.journal.trace == ["cache.get", "main.get"])
            #expect((try? result.get()) == (served ? "stale" : nil))
        }
    }

    @Test func cacheIgnoringValidationServesTheStaleValueWithoutAskingMain() async throws {
        let harness = Harness(main: ["1": "main"])
        harness.cacheStore.script(.get, .failure(StrataError.notValid(staleValue: "stale")))
        let value = try await harness.repository().get(IdQuery(1), operation: .cacheIgnoringValidation)
        #expect(value == "stale")
        #expect(harness.journal.trace == ["cache.get"])
    }
}
