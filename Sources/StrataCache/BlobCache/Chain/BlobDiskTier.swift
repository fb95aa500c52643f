import Foundation
import Strata

/// The persistent layer over the network as the main source of a ``BlobCache``'s chain: the lower repository,
/// read with the responses' own stale-while-revalidate windows, its stale answers marked `.stale`.
///
/// A stale blob inside its response's `stale-while-revalidate` window (RFC 5861) is answered at once and
/// revalidated in the background by the repository, once per URL however many fetches it serves meanwhile
/// (``Strata/OperationPlan/BackgroundRefresh``); any other stale blob is revalidated before answering.
struct BlobDiskTier: GetDataSource {
    /// The persistent layer over the network.
    let repository: BlobCache.DiskRepository

    /// CacheSync, with each stale blob's own revalidation window and none for a blob without one.
    let operation: CacheSyncOperation

    init(_ repository: BlobCache.DiskRepository, clock: any WallClock) {
        self.repository = repository
        let refresh = OperationPlan.BackgroundRefresh(window: .zero, clock: clock) { miss in
            miss.staleEntry(as: Blob.self)?.value.record?.revalidationWindow
        }
        operation = CacheSyncOperation(staleWhileRevalidate: refresh)
    }

    var origin: DataOrigin { .file }

    func get(_ query: any Query) async throws -> Blob {
        try await getEntry(query).value
    }

    func getAll(_ query: any Query) async throws -> [Blob] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func getEntry(_ query: any Query) async throws -> StoredEntry<Blob> {
        var (entry, _, isStale) = try await repository.getEntryMarkingStale(query, operation: operation)
        if isStale { entry.value.origin = .stale }
        return entry
    }
}
