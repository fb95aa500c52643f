extension CacheRepository {
    /// Identifies identical main reads: the method, the query, whether the value is written back, and the write
    /// stamps of the query's keys when the read began.
    ///
    /// A read never joins one that began before a write of its keys went through the repository: that one may
    /// answer with the value from before the write, which a caller that began after the write must never see.
    struct MainReadKey: Hashable, @unchecked Sendable {
        // `AnyHashable` is not declared `Sendable`; it only ever wraps a `Sendable` query.
        let isGetAll: Bool
        let writesBack: Bool
        let query: AnyHashable
        let writes: UInt64
    }

    /// The key of a main read that began at `stamp`, or `nil` when the query is not `Hashable` (or, for a read that
    /// began at a stamp, when coalescing is off).
    ///
    /// - Parameters:
    ///   - stamp: The write stamps when the read began; `nil` for a key that stands for any read of the query (a
    ///     background refresh's).
    ///   - narrowed: Whether the read is a list read narrowed to the keys the cache missed: marked so, it never shares
    ///     a key (and a result type) with the plan's own list read of the same query.
    func mainReadKey(
        isGetAll: Bool,
        writesBack: Bool,
        _ query: any Query,
        since stamp: CacheWriteStamps.Stamp?,
        narrowed: Bool = false
    ) -> MainReadKey? {
        guard stamp == nil || configuration.coalescesMainReads, let query = query as? any Hashable else { return nil }
        let identity = narrowed ? AnyHashable(NarrowedRead(query: AnyHashable(query))) : AnyHashable(query)
        return MainReadKey(isGetAll: isGetAll, writesBack: writesBack, query: identity, writes: stamp?.sum ?? 0)
    }

    /// Runs `readAndStore` once for all the concurrent callers with an equal key, and tells this repository's
    /// ``Configuration/onMainAnswer`` when main answered the call: when `answeredByMain` accepts the result, or when
    /// the cache did not take main's answer (``StrataError/Code/cacheSyncFailed``).
    ///
    /// The shared run tells no repository (its `readAndStore` must not): copies of a repository share its main
    /// reads, each with its own handler, and each read that shares the run tells its own.
    ///
    /// An answer main says must not be stored (``EntryMetadata/isStorable``: for HTTP, `no-store`, and in a cache
    /// shared by many users — `HTTPFreshness.Policy.isShared` — `private`, a `Vary` on a request field, an answer to
    /// credentials) goes only to the read that started the run: it may be one user's, which no other may see. Each
    /// read that joined the run reads main itself.
    ///
    /// - Parameters:
    ///   - key: The read's key (``mainReadKey(isGetAll:writesBack:_:since:narrowed:)``).
    ///   - method: The repository method, as told to the handler.
    ///   - query: The query, as told to the handler.
    ///   - answeredByMain: Whether a result is main's answer (not the cache's, not a stale value).
    ///   - isStorable: Whether a result's entries may be stored (``EntryMetadata/isStorable``), and so handed to the
    ///     reads that joined the run.
    ///   - readAndStore: The read.
    func sharedMainRead<Result: Sendable>(
        _ key: MainReadKey,
        telling method: PluginCall.Method,
        _ query: any Query,
        answeredByMain: (Result) -> Bool,
        isStorable: @escaping @Sendable (Result) -> Bool,
        _ readAndStore: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let value: any Sendable
        do {
            value = try await mainReads.run(key: key, sharingOnly: { ($0 as? Result).map(isStorable) ?? true }) {
                try await readAndStore()
            }
        } catch let error as StrataError where error.code == .cacheSyncFailed {
            mainAnswered(method, query)
            throw error
        }
        guard let result = value as? Result else {
            throw StrataError(.dataSerialization, "A shared main read returned \(type(of: value)), not \(Result.self)")
        }
        if answeredByMain(result) { mainAnswered(method, query) }
        return result
    }
}

/// The coalescing identity of a list read narrowed to the keys the cache missed.
private struct NarrowedRead: Hashable {
    let query: AnyHashable
}
