import Strata
import StrataTesting
import Testing

/// The cache only, except that a value the cache never had is read from main, and not kept; no deletes.
struct CacheOrPeek: RepositoryOperation {
    var name: String { "cacheOrPeek" }

    var plan: OperationPlan {
        OperationPlan(
            read: OperationPlan.Read(first: .cache, asksMainOn: .notFound, writesBack: false),
            write: .cache,
            delete: nil
        )
    }
}

/// An operation of the user's own runs through the same algorithm as the built-in ones.
struct CustomOperationTests {
    @Test func aMissIsReadFromMainWithoutWritingBack() async throws {
        let harness = Harness(main: ["1": "main"])
        let value = try await harness.repository().get(IdQuery(1), operation: CacheOrPeek())
        #expect(value == "main")
        #expect(harness.journal.trace == ["cache.get", "main.get"])
        #expect(harness.cacheStore.contents.isEmpty)
    }

    @Test func aHitIsTheCachesAndAStaleValueIsNotAMissForThisPlan() async throws {
        let harness = Harness(main: ["1": "main"], cache: ["1": "cached"])
        #expect(try await harness.repository().get(IdQuery(1), operation: CacheOrPeek()) == "cached")
        harness.cacheStore.script(.get, .failure(StrataError.notValid(staleValue: "stale")))
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().get(IdQuery(1), operation: CacheOrPeek())
        }
        #expect(error?.code == .notValid)
        #expect(harness.journal.trace == ["cache.get", "cache.get"])
    }

    @Test func listReadsAndStreamsFollowThePlan() async throws {
        let harness = Harness(main: ["1": "one", "2": "two"], cache: ["1": "one"])
        let values = try await harness.repository().getAll(IdsQuery([1, 2]), operation: CacheOrPeek())
        #expect(values == ["one", "two"])
        // The list misses: the cache answers id 1, and main is asked for id 2 only
        #expect(harness.journal.trace == ["cache.getAll", "cache.getAll", "cache.getAll", "main.getAll"])
        #expect(harness.main.calls.map(\.query) == [String(describing: IdsQuery([2]))])

        let observation = Observation(
            harness.repository().stream(KeyQuery("2"), operation: CacheOrPeek(), bufferingNewest: 64)
        )
        defer { observation.task.cancel() }
        #expect(try await observation.wait(forCount: 2) == ["loading(cache)", "value(two, main)"])
        #expect(harness.cacheStore.contents["2"] == nil)
    }

    @Test func writesGoWhereThePlanSaysAndADeclinedDeleteIsNotSupported() async throws {
        let harness = Harness()
        _ = try await harness.repository().put("v", in: IdQuery(1), operation: CacheOrPeek())
        #expect(harness.journal.trace == ["cache.put"])
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().delete(IdQuery(1), operation: CacheOrPeek())
        }
        #expect(error?.code == .operationNotSupported)
        #expect(harness.journal.trace == ["cache.put"])
    }

    @Test func anOperationWithoutAPlanDeclinesEverythingAndIsNamedByItsType() async throws {
        let repository = Harness().repository()
        for call in [
            { try await _ = repository.get(IdQuery(1), operation: UnknownOperation()) },
            { try await _ = repository.put("v", in: IdQuery(1), operation: UnknownOperation()) },
            { try await repository.delete(IdQuery(1), operation: UnknownOperation()) },
        ] as [@Sendable () async throws -> Void] {
            let error = await #expect(throws: StrataError.self) { try await call() }
            #expect(error?.code == .operationNotSupported)
        }
        #expect(UnknownOperation().name == "UnknownOperation")
    }

    @Test func pluginsSeeTheOperationsOwnName() {
        let names = [
            DefaultOperation() as any RepositoryOperation, MainOperation(), MainSyncOperation(), CacheOperation(),
            CacheOperation(ignoringValidation: true), CacheSyncOperation(), CacheOrPeek(),
        ].map { PluginCall(method: .get, query: IdQuery(1), operation: $0, source: "users").operationName }
        #expect(
            names == ["default", "main", "mainSync", "cache", "cacheIgnoringValidation", "cacheSync", "cacheOrPeek"]
        )
    }
}
