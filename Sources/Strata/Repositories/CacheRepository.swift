/// A repository over a *main* and a *cache* data source, where each call's operation decides the order.
///
/// | operation | GET | PUT | DELETE |
/// |---|---|---|---|
/// | ``DefaultOperation`` | as `.cacheSync` | as `.mainSync` | as `.mainSync` |
/// | ``MainOperation`` | main | main | main |
/// | ``MainSyncOperation`` | main, then its entry into the cache | main, then the cache with main's value | main, then the cache |
/// | ``CacheOperation`` | cache (`.cacheIgnoringValidation` serves stale values) | cache | cache |
/// | ``CacheSyncOperation`` | cache; on *not found* or *not valid* main, then its entry into the cache; other cache errors are thrown | cache, then main with the cache's value | cache, then main |
///
/// Each row is the operation's ``RepositoryOperation/plan``, and one algorithm carries out every plan (see
/// ``OperationPlan/Read`` and ``OperationPlan/Write``), so an operation of your own behaves by the same rules.
///
/// A GET with CacheSync goes to the main source only when the cache throws
/// ``StrataError/Code/notFound`` or ``StrataError/Code/notValid``; any other cache error is returned as
/// it is. When the main source then fails and the operation's fallback rule accepts the error, the stale
/// cached value is returned instead (serve-stale-on-error). A value copied from main into the cache keeps its
/// metadata (``PutDataSource/putEntry(_:in:)``), so the copy never outlives its original; a stale cached entry with
/// validators is revalidated (``GetDataSource/getIfModified(_:since:)``), and *not modified* renews its metadata
/// (``PutDataSource/renewMetadata(_:in:)``) and returns it without rewriting it — only while the cache still holds
/// the version the conditional read named: a newer one another read wrote back meanwhile keeps its own metadata
/// (``EntryMetadata/renews(entryWithETag:lastModified:)``; a cache that cannot renew has the value written again on
/// that condition). A value main says must not be stored (``EntryMetadata/isStorable``: an HTTP response with
/// `no-store`) is returned and never written. When main answers *not found* for an entry the cache may hold (a
/// `.mainSync` read, a revalidation, a background refresh), the cache's copy goes (in the write-back turn, as a
/// write-back would be), unless the operation's fallback serves that stale copy after the error: it stays, to be
/// served again.
///
/// **Main's answer never replaces a newer write.** A value read from main is written back into the cache (or renews
/// the cached entry) only when no write of its keys went through the repository since the read began, and none is
/// under way — a put, a delete, a metadata renewal, a tag invalidation, by any operation (`.cache` and `.main`
/// included): main may have answered before the write reached it. Otherwise the read returns main's answer and the
/// cache keeps what the write left. (Write-backs are not such writes: two main reads of a key
/// that race both write back, the last to finish last.) The rule
/// covers every write-back: a read after a miss, a read that starts at main, a revalidation, a background refresh,
/// and the read of the keys a list missed. Writes are told apart by a fixed table of 256 counters per cache
/// (a key's hash picks its counter; a listing or a tag moves one shared counter), so memory does not grow with the
/// keys, and two keys that share a counter only make a write-back be skipped, never a stale value be stored. A
/// read that starts at the cache and misses asks it once more after it took its stamp when its keys were ever
/// written: a write that ended while the cache was being read is then served, not overwritten. A write-back checks
/// and writes the cache in one turn of its keys, and a write through the repository begins between two turns: one
/// that begins after the check waits for the write-back's cache write to end and lands after it, so a write-back
/// never removes or replaces what a write stored. The table is the cache store's own (memory, file and JSON-file
/// stores keep one, which a validator, plugins or a value mapping around a store hand on): two repositories over one
/// store, each with a main of its own, see each other's writes, and neither writes back over what the other
/// acknowledged. (What the store holds is theirs alike: a whole list one stored answers the other's listing read
/// from the cache, so give the store to mains that list the same collection.) A cache of another kind has a table
/// of its repository's own, shared by its copies only. A write made directly to the cache source, not through a
/// repository, is not seen.
///
/// **Two writes of one key at once leave the cache no copy main may not hold.** Main may take them in either order,
/// and their cache writes may come in the other: a write whose cache write follows main's (`.mainSync`,
/// `.default`), or whose main write follows the cache's (`.cacheSync`), checks in its keys' turn whether another
/// write of them through the repository was under way when it began or began since, and then removes the cache's
/// copy rather than store its value (it returns main's answer), so the next read asks main which one it holds. A
/// write that names no key (a listing, a tag) is not checked.
///
/// Concurrent CacheSync reads of an equal `Hashable` query that miss the cache share one main read and
/// one cache write (see ``Configuration/coalescesMainReads``); each reader still applies its own
/// fallback rule. A read never joins one that began before a write of its keys: it could be handed the value from
/// before the write.
///
/// ```swift
/// let users = CacheRepository(
///     main: UsersAPI(client),
///     cache: MemoryDataSource<User>(countLimit: 500).validated(by: .maxAge(.seconds(300)))
/// )
/// let user = try await users.get(IdQuery(42), operation: .cacheSync)
/// _ = try await users.put(user, in: IdQuery(42), operation: .mainSync)
/// ```
public struct CacheRepository<Main: Sendable, Cache: Sendable>: Sendable {
    /// The authoritative source: a server, a database.
    public let main: Main

    /// The fast source kept in sync with the main one.
    public let cache: Cache

    /// How the repository behaves around its two sources.
    public internal(set) var configuration: Configuration

    /// Shares the main read of a CacheSync miss among concurrent identical reads; a read whose every caller was
    /// cancelled is cancelled, main's request with it.
    let mainReads = RequestCoalescer<MainReadKey, any Sendable>(cancelsAbandonedRuns: true)

    /// The stale-while-revalidate refreshes running in the background.
    let refreshes = BackgroundRefreshes()

    /// Which keys were written through the repository since a main read began (see ``CacheWriteStamps``): the
    /// cache's own, shared with every repository over it, when it keeps them (``WriteStampedCache``).
    let writeStamps: CacheWriteStamps

    /// The table of main, when main is a store (or a wrapper of one) with a table other than the cache's: the writes
    /// through the repository are recorded there too, for the repositories whose cache that store is.
    let mainWriteStamps: CacheWriteStamps?

    /// Whether the cache may hold a list answer of this repository's (``forgetListAnswer()``): set before the
    /// repository (or a copy) writes a listing into it, or when it served one; shared by the copies.
    let mayHoldListAnswer = Locked(false)

    /// Announces every write and delete made through this repository (and its copies) to its streams.
    public let changeBroadcaster = ChangeBroadcaster()

    /// Creates a repository over a main and a cache data source.
    ///
    /// - Parameters:
    ///   - main: The authoritative source.
    ///   - cache: The fast source; wrap it in a validator for expiry.
    ///   - configuration: Cache-write policy and other options.
    public init(main: Main, cache: Cache, configuration: Configuration = Configuration()) {
        self.main = main
        self.cache = cache
        self.configuration = configuration
        let writeStamps = CacheWriteStamps.kept(by: cache) ?? CacheWriteStamps()
        self.writeStamps = writeStamps
        mainWriteStamps = CacheWriteStamps.kept(by: main).flatMap { $0 === writeStamps ? nil : $0 }
    }
}

extension CacheRepository {
    /// Options of a ``CacheRepository``.
    public struct Configuration: Sendable {
        /// What a failed cache write after a successful main call does.
        public var cacheWrites: CacheWritePolicy

        /// Whether concurrent CacheSync reads of an equal query that miss the cache share one main read
        /// (and its cache write); on by default.
        ///
        /// Only queries that are `Hashable` are shared. A caller whose task is cancelled stops waiting
        /// with ``StrataError/Code/cancelled``; the shared main read goes on for the others. A read that missed
        /// just before another shared read of its query ended finds that read's value in the cache: when a
        /// shared read ended between a caller's cache miss and the start of its own, the cache is asked again
        /// before main.
        ///
        /// An answer main says must not be stored (``EntryMetadata/isStorable``: for HTTP in a cache shared by many
        /// users, `private`, a `Vary` on a request field, an answer to credentials) is not shared: it goes to the read
        /// that asked main, and each read that joined it asks main itself.
        public var coalescesMainReads: Bool

        /// The plugins every background refresh runs through (stale-while-revalidate,
        /// ``OperationPlan/BackgroundRefresh``): a logging or metrics plugin here sees each refresh, and the error
        /// of a failed one, which no caller sees.
        ///
        /// They see a ``PluginCall`` with the read's method and query and the source `refresh`.
        public var refreshPlugins: [any StrataPlugin]

        /// The most background refreshes that run at once; a stale read beyond it is served without starting
        /// one (a later read starts it). 64 by default. Zero or less turns them off: a stale value is served inside
        /// its stale-while-revalidate window without a refresh, and only a read past the window asks main.
        public var maxBackgroundRefreshes: Int

        /// Called each time main answered a call of a plan — the extension point for work that waits for main to be
        /// reachable (StrataOffline replays its outbox from it); `nil` by default.
        ///
        /// It sees a ``PluginCall`` with the method, the query and the source `main`, after main returned and
        /// before its answer is written into the cache: a read that asked main (a conditional read main answered
        /// *not modified* too, a background refresh, the read of the keys a list missed), a write or a delete of
        /// a plan that writes main. A main read shared by concurrent readers calls it once; a call main failed, and
        /// a read the cache answered, never. It runs on the caller's task, so it must return quickly: start a
        /// task for anything longer. ``CacheRepository/observingMainAnswers(_:)`` adds one to a repository.
        public var onMainAnswer: (@Sendable (PluginCall) -> Void)?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - cacheWrites: ``CacheWritePolicy/required`` (the default) reports a failed cache write as
        ///     ``StrataError/Code/cacheSyncFailed``; ``CacheWritePolicy/bestEffort`` ignores it.
        ///   - coalescesMainReads: Share the main read of concurrent identical CacheSync misses.
        ///   - refreshPlugins: The plugins every background refresh runs through.
        ///   - maxBackgroundRefreshes: The most background refreshes that run at once.
        ///   - onMainAnswer: Called each time main answered a call of a plan.
        public init(
            cacheWrites: CacheWritePolicy = .required,
            coalescesMainReads: Bool = true,
            refreshPlugins: [any StrataPlugin] = [],
            maxBackgroundRefreshes: Int = 64,
            onMainAnswer: (@Sendable (PluginCall) -> Void)? = nil
        ) {
            self.cacheWrites = cacheWrites
            self.coalescesMainReads = coalescesMainReads
            self.refreshPlugins = refreshPlugins
            self.maxBackgroundRefreshes = maxBackgroundRefreshes
            self.onMainAnswer = onMainAnswer
        }
    }

    /// What a failed cache write after a successful main call does.
    public enum CacheWritePolicy: Sendable, Hashable {
        /// The call fails with ``StrataError/Code/cacheSyncFailed``; the main value is the error's payload. The
        /// cache's older copy of the keys is removed first.
        case required
        /// The failure is ignored and the main value is returned, once the cache's older copy of the keys is removed
        /// (so that no read serves what main's answer superseded); when that removal fails too, the call fails as
        /// under ``required``.
        case bestEffort
    }

    /// The operation's plan for reads, or ``StrataError/Code/operationNotSupported`` when it declines them.
    func readPlan(of operation: any RepositoryOperation) throws -> OperationPlan.Read {
        guard let plan = operation.plan.read else { throw StrataError.operationNotSupported(operation, by: Self.self) }
        return plan
    }

    /// The operation's plan for writes, or ``StrataError/Code/operationNotSupported`` when it declines them.
    func writePlan(of operation: any RepositoryOperation) throws -> OperationPlan.Write {
        guard let plan = operation.plan.write else { throw StrataError.operationNotSupported(operation, by: Self.self) }
        return plan
    }

    /// The operation's plan for deletes, or ``StrataError/Code/operationNotSupported`` when it declines them.
    func deletePlan(of operation: any RepositoryOperation) throws -> OperationPlan.Write {
        guard let plan = operation.plan.delete else {
            throw StrataError.operationNotSupported(operation, by: Self.self)
        }
        return plan
    }

    /// Runs a cache write that follows a successful main call, applying the write policy.
    ///
    /// A cache write that fails may leave the cache's older copy of `query` in place (a store that refuses a value
    /// too large, or a full disk, keeps the entry it had): it is removed (``removeCopy(of:)``), so that no read
    /// serves what main's answer superseded. When it cannot be removed either, the call fails with
    /// ``StrataError/Code/cacheSyncFailed`` whatever the policy: the caller must know that reads may not see it.
    ///
    /// - Parameters:
    ///   - mainResult: What the call returns when a best-effort write fails.
    ///   - payload: The payload of ``StrataError/Code/cacheSyncFailed``: main's value; `mainResult` by default.
    ///   - query: What the cache write stores, renews or deletes.
    ///   - write: The cache write.
    func syncCache<Result: Sendable>(
        after mainResult: Result,
        payload: (any Sendable)? = nil,
        superseding query: any Query,
        _ write: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await write()
        } catch {
            let isRemoved = await removeCopy(of: query)
            if configuration.cacheWrites == .bestEffort, isRemoved { return mainResult }
            // Main took it: a repository above whose main this one is must not keep its older copy either.
            throw StrataError(
                .cacheSyncFailed,
                isRemoved
                    ? "The main source succeeded but writing its result to the cache failed"
                    : "The main source succeeded but writing its result to the cache failed, and the cache's older copy could not be removed",
                underlying: error,
                mayHaveTakenEffect: true,
                payload: payload ?? mainResult
            )
        }
    }

    /// Removes the cache's copy of the keys `query` names (``removeCopy(of:)``) in place of a cache write after main's,
    /// or fails that cache write with ``StrataError/Code/cacheSyncFailed`` when it cannot: the write policy then
    /// applies (``syncCache(after:payload:superseding:_:)``), so the caller learns that reads may serve the older copy.
    ///
    /// - Parameters:
    ///   - query: The keys.
    ///   - what: What the keys are, for the error's message.
    func removeCopyInPlaceOfWrite(of query: any Query, _ what: String) async throws {
        guard await removeCopy(of: query) else {
            throw StrataError(.cacheSyncFailed, "The cache's older copy of \(what) could not be removed")
        }
    }

    /// Deletes the cache's copy of the entries `query` names, for an answer of main that must not be stored, which
    /// supersedes it (when the cache can delete), and the cache's list answer with it (``forgetListAnswer()``); for a
    /// ``StoredListAnswerQuery``, the list answer alone.
    ///
    /// Main's answer stands whatever the cache does: a delete that fails does not fail the read. Nor is the value gone,
    /// so the repository's streams are not told "deleted" (they keep what they show).
    func dropCopy(of query: any Query) async {
        guard !(query is StoredListAnswerQuery) else { return await forgetListAnswer() }
        await ObservationScope.droppingCopies {
            try? await (cache as? any DeleteDataSource)?.delete(query)
        }
        await forgetListAnswer()
    }

    /// Removes the cache's copy of the entries `query` names (a ``KeyedQuery`` or a ``MultiKeyedQuery``), which an
    /// answer or a write of main superseded; whether none is left to serve.
    ///
    /// A listing query's copy is left (`true`): removing it would empty the whole cache. A cache that cannot delete
    /// keeps its copy (`false`). Either way the cache's list answer goes (``forgetListAnswer()``). Streams are not
    /// told "deleted": the value is not gone, only the cache's copy.
    func removeCopy(of query: any Query) async -> Bool {
        let isRemoved = await removeKeyedCopy(of: query)
        await forgetListAnswer()
        return isRemoved
    }

    /// The removal of ``removeCopy(of:)`` without the list answer's.
    private func removeKeyedCopy(of query: any Query) async -> Bool {
        guard query is any KeyedQuery || query is any MultiKeyedQuery else { return true }
        guard let cache = cache as? any DeleteDataSource else { return false }
        do {
            try await ObservationScope.droppingCopies { try await cache.delete(query) }
            return true
        } catch let error as StrataError where error.code == .notFound {
            return true
        } catch {
            return false
        }
    }

    /// Forgets the list answer the cache stored (``StoredListAnswerQuery``; its entries stay), after a copy of an
    /// entry main may still hold went: the answer would list every entry but that one as the whole list.
    ///
    /// For a listing's copy, which is left, it bounds what a write made in the cache meanwhile leaves (a held write
    /// landing during a list write-back): the listing is main's again. Sent only once the cache may hold a list answer
    /// of this repository's (``mayHoldListAnswer``: it wrote a listing into the cache, or the cache served one): a
    /// cache that keeps none (a BlobCache's tiers) refuses the query, and its plugins would log and count each refusal
    /// as a failed call. So a list answer another repository over the same store stored, which this one never served,
    /// is not forgotten by this one, except by ``dropCopy(mainMayHold:)``, which deletes it whoever stored it
    /// (``deleteListAnswer()``). A cache that refuses it anyway is ignored.
    func forgetListAnswer() async {
        guard mayHoldListAnswer.withLock({ $0 }) else { return }
        await deleteListAnswer()
    }

    /// Deletes the list answer the cache stored (``StoredListAnswerQuery``; its entries stay), whichever repository
    /// over the cache stored it; a cache that refuses the query, or keeps none, is ignored.
    func deleteListAnswer() async {
        await ObservationScope.droppingCopies {
            try? await (cache as? any DeleteDataSource)?.delete(StoredListAnswerQuery(AllObjectsQuery()))
        }
    }

    /// Marks that the cache may hold a list answer of this repository's (``forgetListAnswer()``), before a write of
    /// `query` into it when that is a listing's whole answer (``AllObjectsQuery``).
    func markListAnswer(writing query: any Query) {
        guard query is AllObjectsQuery else { return }
        mayHoldListAnswer.withLock { $0 = true }
    }
}

extension CacheRepository: RepositoryCapabilities {}
