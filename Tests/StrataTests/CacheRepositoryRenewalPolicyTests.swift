import Foundation
import Strata
import StrataTesting
import Testing

/// A repository's `renewMetadata` follows the cache-write policy for the cache's renewal after main's, as every
/// cache write after main's does, and the rules of every write when main's renewal fails.
struct CacheRepositoryRenewalPolicyTests {
    /// An entry stored at 1,000 s, in main and the cache.
    private static let entry = StoredEntry(
        value: "v",
        metadata: EntryMetadata(storedAt: Date(timeIntervalSince1970: 1_000))
    )

    /// The metadata a renewal gives it.
    private static let renewed = EntryMetadata(storedAt: Date(timeIntervalSince1970: 2_000), eTag: "\"v2\"")

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

    /// A renewal whose main call failed but may have taken effect (a timeout after it was sent), in a plan the cache
    /// follows, removes the cache's copy, as every such write does — before, the cache kept the copy with its old
    /// metadata, and served it as fresh while main's was shorter (found in review).
    @Test func aRenewalMainMayHaveTakenRemovesTheCachesCopy() async throws {
        let timeout = StrataError(.network, "The request timed out after it was sent", mayHaveTakenEffect: true)
        let main = EntryStore(["1": Self.entry], renewalError: timeout)
        let cache = EntryStore(["1": Self.entry])
        let repository = CacheRepository(main: main, cache: cache)

        let error = await #expect(throws: StrataError.self) {
            try await repository.renewMetadata(Self.renewed, in: IdQuery(1), operation: .default)
        }

        #expect(error?.code == .network && error?.mayHaveTakenEffect == true, "\(String(describing: error))")
        #expect(cache.entry("1") == nil)
    }

    /// A renewal the cache took first whose main call then fails says it may have taken effect, as every write the
    /// cache takes first does: the cache holds the new metadata — before, main's error was thrown unflagged (found in
    /// review).
    @Test func aRenewalTheCacheTookFirstSaysItMayHaveTakenEffectWhenMainFails() async throws {
        let main = EntryStore(["1": Self.entry], renewalError: StrataError(.network, "The connection was lost"))
        let cache = EntryStore(["1": Self.entry])
        let repository = CacheRepository(main: main, cache: cache)

        let error = await #expect(throws: StrataError.self) {
            try await repository.renewMetadata(Self.renewed, in: IdQuery(1), operation: .cacheSync)
        }

        #expect(error?.code == .network && error?.mayHaveTakenEffect == true, "\(String(describing: error))")
        #expect(cache.entry("1")?.metadata.eTag == "\"v2\"")
    }
}
