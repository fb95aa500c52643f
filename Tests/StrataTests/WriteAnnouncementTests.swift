import Strata
import StrataTesting
import Testing

/// The changes a broadcaster announced while `body` ran, in order, whether `body` threw or not.
func announcements(of broadcaster: ChangeBroadcaster, during body: () async throws -> Void) async -> [DataChange] {
    let changes = broadcaster.changes(forKey: nil, bufferingNewest: 64)
    try? await body()
    broadcaster.publish(.put(key: "end"))
    var seen: [DataChange] = []
    for await change in changes {
        if change == .put(key: "end") { break }
        seen.append(change)
    }
    return seen
}

/// Observers hear of exactly the writes that happened, after they happened.
struct WriteAnnouncementTests {
    @Test func aPutAnnouncesTheCacheWriteWhenMainThenFails() async {
        let harness = Harness()
        harness.mainStore.script(.put, .failure(offline))
        let repository = harness.repository()
        let heard = await announcements(of: repository.changeBroadcaster) {
            _ = try await repository.put("v", in: KeyQuery("1"), operation: .cacheSync)
        }
        #expect(harness.cacheStore.contents["1"] == "v")
        #expect(heard == [.put(key: "1")])
    }

    @Test func aPutThatWroteNothingAnnouncesNothing() async {
        let harness = Harness()
        harness.mainStore.script(.put, .failure(offline))
        harness.cacheStore.script(.putAll, .failure(offline))
        let repository = harness.repository()
        let heard = await announcements(of: repository.changeBroadcaster) {
            _ = try await repository.put("v", in: KeyQuery("1"), operation: .mainSync)
            _ = try await repository.putAll(["v"], in: IdsQuery(["2"]), operation: .cacheSync)
        }
        #expect(heard.isEmpty)
    }

    @Test func aPutWhoseCacheSyncFailedAnnouncesMainsWrite() async {
        let harness = Harness()
        harness.cacheStore.script(.put, .failure(offline))
        let repository = harness.repository()
        let heard = await announcements(of: repository.changeBroadcaster) {
            _ = try await repository.put("v", in: KeyQuery("1"), operation: .mainSync)
        }
        #expect(harness.mainStore.contents["1"] == "v")
        #expect(heard == [.put(key: "1")])
    }

    @Test func aDeleteAnnouncesTheCacheDeletionWhenMainThenFails() async {
        let harness = Harness(main: ["1": "v"], cache: ["1": "v"])
        harness.mainStore.script(.delete, .failure(offline))
        let repository = harness.repository()
        let heard = await announcements(of: repository.changeBroadcaster) {
            try await repository.delete(KeyQuery("1"), operation: .cacheSync)
        }
        #expect(harness.cacheStore.contents["1"] == nil)
        #expect(heard == [.delete(key: "1")])
    }

    @Test func aDeleteThatDeletedNothingAnnouncesNothing() async {
        let harness = Harness(main: ["1": "v"], cache: ["1": "v"])
        harness.mainStore.script(.delete, .failure(offline))
        let repository = harness.repository()
        let heard = await announcements(of: repository.changeBroadcaster) {
            try await repository.delete(KeyQuery("1"), operation: .mainSync)
        }
        #expect(heard.isEmpty)
    }

    @Test func aCompleteWriteIsAnnouncedOnce() async {
        let harness = Harness()
        let repository = harness.repository()
        let heard = await announcements(of: repository.changeBroadcaster) {
            _ = try await repository.put("v", in: KeyQuery("1"), operation: .mainSync)
            try await repository.delete(KeyQuery("1"), operation: .cacheSync)
        }
        #expect(heard == [.put(key: "1"), .delete(key: "1")])
    }

    @Test func aSingleSourceRepositoryAnnouncesOnlyWritesThatHappened() async {
        let store = ScriptedDataSource<String>()
        store.script(.put, .failure(offline))
        store.script(.delete, .failure(offline))
        let repository = SingleDataSourceRepository(store)
        let heard = await announcements(of: repository.changeBroadcaster) {
            _ = try? await repository.put("v", in: KeyQuery("1"))
            try? await repository.delete(KeyQuery("1"))
            _ = try await repository.put("w", in: KeyQuery("2"))
        }
        #expect(heard == [.put(key: "2")])
    }
}
