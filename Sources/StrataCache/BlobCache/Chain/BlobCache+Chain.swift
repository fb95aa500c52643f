import Foundation
import Strata

extension BlobCache {
    /// The persistent layer as the lower repository's cache: the file tier behind the HTTP freshness validator (a
    /// stale blob is a `notValid` miss that carries it, for revalidation), seen by the plugins as validated — a stale
    /// blob is `notValid` to them too, not a hit.
    typealias FileLayer = PluggedDataSource<ValidatedDataSource<BlobFileTier, FreshnessValidator<Blob>>>

    /// The lower repository: the persistent layer over the network.
    typealias DiskRepository = CacheRepository<PluggedDataSource<BlobNetworkTier>, FileLayer>

    /// The whole chain: the ephemeral layer over the lower repository, used as a data source.
    typealias Chain = CacheRepository<BlobDiskTier, PluggedDataSource<BlobMemoryTier>>

    /// Builds the chain over a cache's layers: memory over (file over network), each layer wrapped in the
    /// configuration's plugins.
    ///
    /// Only the lower repository shares concurrent reads of one URL (so a hundred cold fetches make one
    /// request); a disk hit takes no shared-read path, which costs a thread hop each way.
    static func makeChain(_ link: BlobCacheLink, configuration: Configuration) -> Chain {
        let plugins = configuration.plugins
        let file = BlobFileTier(link: link).validated(by: .fresh(clock: configuration.clock))
            .plugins(plugins, name: "file")
        let disk = DiskRepository(main: BlobNetworkTier(link: link).plugins(plugins, name: "network"), cache: file)
        return Chain(
            main: BlobDiskTier(disk, clock: configuration.clock),
            cache: BlobMemoryTier(link: link).plugins(plugins, name: "memory"),
            configuration: .init(coalescesMainReads: false)
        )
    }

    /// A fetch through the chain, with the stale-on-error rule applied when the network fails.
    func fetchThroughChain(_ key: String) async throws -> Fetched {
        do {
            let blob = try await chain.get(KeyQuery(key), operation: CacheSyncOperation())
            blob.releaseRoom()
            return Fetched(data: blob.data, origin: blob.origin)
        } catch let error as StrataError where error.code == .cacheSyncFailed {
            // The repository's payload is the chain's value; a BlobCache promises the downloaded bytes.
            let inner = (error.underlying as? StrataError).flatMap { $0.code == .cacheSyncFailed ? $0 : nil }
            let blob = (error.payload as? Blob) ?? (inner?.payload as? Blob)
            blob?.releaseRoom()
            throw StrataError(
                .cacheSyncFailed,
                "Storing the download of \(key.describedForErrorsAsURL) on disk failed",
                underlying: inner?.underlying ?? error.underlying,
                payload: blob?.data
            )
        } catch {
            if let stale = persistentEntry(key), servesStale(stale, after: error) {
                return Fetched(data: stale.data, origin: .stale)
            }
            throw error
        }
    }
}
