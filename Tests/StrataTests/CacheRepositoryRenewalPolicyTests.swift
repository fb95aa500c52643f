import Foundation
import Strata
import StrataTesting
import Testing

/// A repository's `renewMetadata` follows the cache-write policy for the cache's renewal after main's, as every
/// cache write after main's does.
struct CacheRepositoryRenewalPolicyTests {
    /// Before, the cache's renewal error was thrown as it was whatever the policy, and the cache kept its copy with
    /// the metadata main no longer has.
    @Test(arguments: [CacheRepository<EntryStore, EntryStore>.CacheWritePolicy.bestEffort, .required])
    func aFailedCacheRenewalAfterMainsFollowsThePolicyAndDropsTheCopy(
        policy: CacheRepository<EntryStore, EntryStore>.CacheWritePolicy
    ) async throws {
        let entry = StoredEntry(value: "v", metadata: EntryMetadata(storedAt: Date(timeIntervalSince1970: 1_000)))
        let main = EntryStore(["1": entry])
        let cache = EntryStore(["1": entry], renewalError: StrataError(.io, "disk full"))
        let repository = CacheRepository(main: main, cache: cache, configuration: .init(cacheWrites: policy))
        let renewed = EntryMetadata(storedAt: Date(timeIntervalSince1970: 2_000), eTag: "\"v2\"")

        do {
            let result = try await repository.renewMetadata(renewed, in: IdQuery(1), operation: .default)
            #expect(policy == .bestEffort && result == false)
        } catch let error as StrataError {
            #expect(policy == .required && error.code == .cacheSyncFailed, "\(error)")
        }

        #expect(main.entry("1")?.metadata.eTag == "\"v2\"")
        #expect(cache.entry("1") == nil)
    }
}
