import Strata
import StrataTesting
import Testing

struct CacheRepositoryPutTests {
    @Test(arguments: [
        (DefaultOperation() as any RepositoryOperation, ["main.put", "cache.put"]),
        (MainSyncOperation(), ["main.put", "cache.put"]),
        (MainOperation(), ["main.put"]),
        (CacheOperation(), ["cache.put"]),
        (CacheSyncOperation(), ["cache.put", "main.put"]),
    ])
    func putVisitsTheSourcesInTheOrderOfTheTable(operation: any RepositoryOperation, trace: [String]) async throws {
        let harness = Harness()
        _ = try await harness.repository().put("v", in: IdQuery(1), operation: operation)
        #expect(harness.journal.trace == trace)
    }

    @Test func mainSyncPutsMainsReturnedValueIntoTheCache() async throws {
        let harness = Harness()
        harness.mainStore.script(.put, .transform { $0 + "+id" })
        let stored = try await harness.repository().put("v", in: IdQuery(1), operation: .mainSync)
        #expect(stored == "v+id")
        #expect(harness.cacheStore.contents["1"] == "v+id")
    }

    @Test func cacheSyncWritesMainOnlyAfterTheCacheSucceeded() async throws {
        let harness = Harness()
        harness.cacheStore.script(.put, .failure(StrataError(.io, "disk full")))
        await #expect(throws: StrataError.self) {
            try await harness.repository().put("v", in: IdQuery(1), operation: .cacheSync)
        }
        #expect(harness.journal.trace == ["cache.put"])
        #expect(harness.mainStore.contents.isEmpty)
    }

    @Test func mainSyncLeavesTheCacheAloneWhenMainFails() async throws {
        let harness = Harness()
        harness.mainStore.script(.put, .failure(offline))
        await #expect(throws: StrataError.self) {
            try await harness.repository().put("v", in: IdQuery(1), operation: .mainSync)
        }
        #expect(harness.journal.trace == ["main.put"])
    }

    @Test func aFailedCacheWriteAfterAMainPutIsReported() async throws {
        let harness = Harness()
        harness.cacheStore.script(.put, .failure(StrataError(.io, "disk full")))
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().put("v", in: IdQuery(1), operation: .default)
        }
        #expect(error?.code == .cacheSyncFailed)
        #expect(harness.mainStore.contents["1"] == "v")
    }

    @Test func putAllFollowsTheSameTable() async throws {
        let harness = Harness()
        let stored = try await harness.repository().putAll(["a", "b"], in: IdsQuery([1, 2]), operation: .mainSync)
        #expect(stored == ["a", "b"])
        #expect(harness.journal.trace == ["main.putAll", "cache.putAll"])
        #expect(harness.cacheStore.contents == ["1": "a", "2": "b"])
    }

    @Test func anUnknownOperationIsAThrownError() async throws {
        let harness = Harness()
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().put("v", in: IdQuery(1), operation: UnknownOperation())
        }
        #expect(error?.code == .operationNotSupported)
        #expect(harness.journal.trace.isEmpty)
    }
}

struct CacheRepositoryDeleteTests {
    @Test(arguments: [
        (DefaultOperation() as any RepositoryOperation, ["main.delete", "cache.delete"]),
        (MainSyncOperation(), ["main.delete", "cache.delete"]),
        (MainOperation(), ["main.delete"]),
        (CacheOperation(), ["cache.delete"]),
        (CacheSyncOperation(), ["cache.delete", "main.delete"]),
    ])
    func deleteVisitsTheSourcesInTheOrderOfTheTable(operation: any RepositoryOperation, trace: [String]) async throws {
        let harness = Harness(main: ["1": "m"], cache: ["1": "c"])
        try await harness.repository().delete(IdQuery(1), operation: operation)
        #expect(harness.journal.trace == trace)
    }

    @Test func mainSyncKeepsTheCacheWhenMainFails() async throws {
        let harness = Harness(main: ["1": "m"], cache: ["1": "c"])
        harness.mainStore.script(.delete, .failure(offline))
        await #expect(throws: StrataError.self) {
            try await harness.repository().delete(IdQuery(1), operation: .mainSync)
        }
        #expect(harness.cacheStore.contents["1"] == "c")
    }

    @Test func cacheSyncKeepsMainWhenTheCacheFails() async throws {
        let harness = Harness(main: ["1": "m"], cache: ["1": "c"])
        harness.cacheStore.script(.delete, .failure(StrataError(.io, "read-only")))
        await #expect(throws: StrataError.self) {
            try await harness.repository().delete(IdQuery(1), operation: .cacheSync)
        }
        #expect(harness.mainStore.contents["1"] == "m")
    }

    @Test func aFailedCacheDeleteAfterMainIsReportedUnlessBestEffort() async throws {
        let harness = Harness(main: ["1": "m"], cache: ["1": "c"])
        harness.cacheStore.script(.delete, .failure(StrataError(.io, "read-only")), .failure(StrataError(.io, "again")))
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().delete(IdQuery(1), operation: .mainSync)
        }
        #expect(error?.code == .cacheSyncFailed)
        try await harness.repository(.init(cacheWrites: .bestEffort)).delete(IdQuery(1), operation: .mainSync)
    }

    @Test func anUnknownOperationIsAThrownError() async throws {
        let harness = Harness()
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().delete(IdQuery(1), operation: UnknownOperation())
        }
        #expect(error?.code == .operationNotSupported)
    }
}
