extension CacheRepository {
    /// Runs `write`, a write of the query's keys made to the repository's sources directly, as if it went through
    /// the repository: a main read of those keys that began before it ends, or runs while it does, does not write
    /// main's answer back into the cache.
    ///
    /// What a composition that writes main itself (an offline outbox sending a write) uses, so that a read which
    /// met main before the write reached it never puts that older answer into the cache after the write. The write
    /// begins once no write-back of its keys is writing the cache (see ``CacheWriteStamps``). The repository's own
    /// writes go through it too: when main is a store with a table of its own (``WriteStampedCache``), the write is
    /// recorded there as well, so that a repository whose cache that store is does not write an older answer of
    /// its own main back over it.
    ///
    /// - Parameters:
    ///   - query: The keys written.
    ///   - write: The write.
    /// - Throws: ``StrataError/Code/cancelled`` when the task is cancelled while the write waits for a write-back of
    ///   its keys (nothing is written); `write`'s error.
    package func recordingWrite<Result>(
        _ query: any Query,
        _ write: () async throws -> Result
    ) async throws -> Result {
        try await recordingWrite(query) { (_: CacheWriteStamps.Write) in try await write() }
    }

    /// Runs `write` as ``recordingWrite(_:_:)`` does, handing it the write's record in the cache's table, for the
    /// cache write that ends it (``CacheWriteStamps/finishing(_:_:dropping:)``).
    func recordingWrite<Result>(
        _ query: any Query,
        seeing write: (CacheWriteStamps.Write) async throws -> Result
    ) async throws -> Result {
        // Neither table's turn is held while the write runs: one taken inside the other cannot wait for it.
        guard let mainWriteStamps else { return try await writeStamps.recordingWrite(query, seeing: write) }
        return try await mainWriteStamps.recordingWrite(query) {
            try await writeStamps.recordingWrite(query, seeing: write)
        }
    }

    /// Counts a write of the query's keys in progress until ``endHeldWrite(_:)`` is called with the same query: no
    /// main read of those keys writes its answer back meanwhile, nor one that began before the end.
    ///
    /// What a composition whose write of a key lasts longer than a call uses: a write waiting in an offline outbox,
    /// which main has not taken yet, so main's answers are older than it, or a removal made directly in the cache.
    /// It cannot wait for a write-back writing the cache now: that write-back removes what it stored (unless it
    /// stored a listing). Shared by every copy of the repository.
    ///
    /// - Parameter query: The keys written.
    package func beginHeldWrite(_ query: any Query) {
        _ = writeStamps.begin(query)
    }

    /// Ends a write ``beginHeldWrite(_:)`` began with the same query.
    ///
    /// - Parameter query: The keys written.
    package func endHeldWrite(_ query: any Query) {
        writeStamps.end(CacheWriteStamps.scope(of: query))
    }
}

extension CacheRepository {
    /// How many stripes the write stamps cut the keys into: two keys in one stripe keep each other's main answers from
    /// being written back while either is written.
    package static var writeStampStripes: Int { CacheWriteStamps.stripeCount }
}
