extension CacheRepository {
    /// Carries out a write plan: the one algorithm behind `put`, `putAll`, `putEntry`, `putAllEntries` and
    /// `delete`.
    ///
    /// The first source is written; only after it succeeded, the other one, with the first's returned value. A
    /// cache write after main's follows the write policy (``StrataError/Code/cacheSyncFailed``). When main's write
    /// fails because the caller's task was cancelled, or with an error that says main may have taken it
    /// (``StrataError/mayHaveTakenEffect``: a request that timed out after it was sent), the cache's copy of the keys
    /// is removed (``removeCopy(of:)``) and a change announced, so that no read serves a value older than main's.
    /// When the cache was written first and main's write then fails, main's error is thrown saying the write may have
    /// taken effect (``StrataError/mayHaveTakenEffect``; an error that is not a ``StrataError`` is thrown as it is,
    /// unflagged): the cache holds it, and the repository's reads serve it; the
    /// cache's list answer goes (``forgetListAnswer()``), for main may not hold what the cache now does.
    /// `announce` runs once, after the writes, whenever the first one happened — even when the second then failed —
    /// and never when nothing was written. A put in a listing (`putAll` in ``AllObjectsQuery``) that writes main too
    /// leaves the cache no list answer (``forgetListAnswer()``): main adds the values to the entries it holds, and
    /// the values are not its answer to "every entry"; a `.cache` put stores one. The write is recorded in the write
    /// stamps from its start to its end, so a main read of the keys that began before it ended never writes its answer
    /// back over it. A write of keys that another write of them overlapped (under way when it began, or begun since)
    /// ends with the cache's copy removed (``removeCopy(of:)``) in place of the cache write after main's, or after
    /// main's write that followed the cache's (``CacheWriteStamps/finishing(_:_:dropping:)``): main may have taken
    /// the two in either order. It returns main's answer then; a copy that cannot be removed is a failed cache write
    /// (``StrataError/Code/cacheSyncFailed``, under the write policy).
    ///
    /// - Parameters:
    ///   - plan: The operation's write (or delete) plan.
    ///   - method: The call's method, for ``Configuration/onMainAnswer``.
    ///   - query: The call's query, for ``Configuration/onMainAnswer``.
    ///   - input: What the first source is given.
    ///   - toMain: Writes main; returns what the next step is given.
    ///   - toCache: Writes the cache; returns what the next step is given.
    ///   - toCacheAfterMain: Writes main's answer into the cache, when that differs from `toCache` (a `putAll` of
    ///     keys matches main's answer to them); `toCache` when `nil`.
    ///   - payload: Main's value in what the sources return (the value of an entry), for
    ///     ``StrataError/Code/cacheSyncFailed``; what they return by default.
    ///   - announce: Publishes the change to observers.
    /// - Returns: What the last source returned.
    func runWrite<Input: Sendable>(
        _ plan: OperationPlan.Write,
        _ method: PluginCall.Method,
        _ query: any Query,
        _ input: Input,
        toMain: (Input) async throws -> Input,
        toCache: (Input) async throws -> Input,
        toCacheAfterMain: ((Input) async throws -> Input)? = nil,
        payload: (Input) -> any Sendable = { $0 },
        announce: () -> Void
    ) async throws -> Input {
        func writeMain(_ input: Input) async throws -> Input {
            let written = try await toMain(input)
            mainAnswered(method, query)
            return written
        }
        func writeCache(_ input: Input, _ write: (Input) async throws -> Input) async throws -> Input {
            if method != .delete { markListAnswer(writing: query) }
            let written = try await write(input)
            // Some values written in a listing, with main's write on either side, are not main's answer to it (main
            // keeps its other entries): no list answer of the cache's stands for them.
            if plan.thenOther, method != .delete, StoredListAnswerQuery.listing(of: query) != nil {
                await forgetListAnswer()
            }
            return written
        }
        return try await recordingWrite(query) { write in
            let first: Input
            do {
                first = plan.first == .main ? try await writeMain(input) : try await writeCache(input, toCache)
            } catch  where plan.first == .main {
                throw await mainFailed(error, in: plan, method, query)
            }
            defer { announce() }
            guard plan.thenOther else { return first }
            // Another write of the keys at once: main may have taken the two in either order, so the cache's copy goes
            // rather than hold the value of the one whose cache write came last.
            func dropInstead(returning mainResult: Input) async throws -> Input {
                try await removeCopyInPlaceOfWrite(of: query, "keys another write wrote at once")
                return mainResult
            }
            if plan.first == .main {
                return try await syncCache(after: first, payload: payload(first), superseding: query) {
                    try await writeStamps.finishing(write) {
                        if let toCacheAfterMain { return try await writeCache(first, toCacheAfterMain) }
                        return try await writeCache(first, toCache)
                    } dropping: {
                        try await dropInstead(returning: first)
                    }
                }
            }
            let written: Input
            do {
                written = try await writeMain(first)
            } catch {
                // The cache took the write, and main may not have: the cache's list answer is not main's any more.
                await forgetListAnswer()
                throw await mainFailed(error, in: plan, method, query)
            }
            return try await syncCache(after: written, payload: payload(written), superseding: query) {
                try await writeStamps.finishing(write) {
                    written
                } dropping: {
                    try await dropInstead(returning: written)
                }
            }
        }
    }

    /// What a write of `query` throws when main's call of it failed with `error`: the one rule of every write plan, for
    /// ``runWrite(_:_:_:_:toMain:toCache:toCacheAfterMain:payload:announce:)`` and
    /// ``renewMetadata(_:in:operation:)``.
    ///
    /// When the cache took the write first, main's error says the write may have taken effect
    /// (``StrataError/mayHaveTakenEffect``; an error that is not a ``StrataError`` is thrown as it is): the repository
    /// changed, whatever the error says of main. When the cache was to follow main, and main may have the write (the
    /// caller was cancelled with it on its way, or main says so: a timeout after it was sent,
    /// ``StrataError/writeMayHaveTakenEffect(after:)``), the cache's copy may be older than main's value now: it goes (not as a
    /// deletion, ``dropCopy(afterUncertain:of:)``), and streams read again.
    ///
    /// - Parameters:
    ///   - error: Main's error.
    ///   - plan: The write's plan.
    ///   - method: The call's method.
    ///   - query: What was written.
    /// - Returns: The error to throw.
    func mainFailed(
        _ error: any Error,
        in plan: OperationPlan.Write,
        _ method: PluginCall.Method,
        _ query: any Query
    ) async -> any Error {
        if plan.first == .cache {
            guard var error = error as? StrataError else { return error }
            error.mayHaveTakenEffect = true
            return error
        }
        if plan.thenOther, StrataError.writeMayHaveTakenEffect(after: error) {
            await dropCopy(afterUncertain: method, of: query)
            changeBroadcaster.publishWrite(to: query)
        }
        return error
    }

    /// Drops what the cache holds of `query` after main's write of it failed and may have taken effect: the copy of
    /// the keys a keyed query names (``removeCopy(of:)``); for a delete of what a tag, a filter or a listing selects,
    /// what the delete's success would have removed from the cache; for a put of a whole list, the list answer the
    /// cache stored (``forgetListAnswer()``). (Not as a deletion: streams are told of a write, and read again.)
    /// Returns whether the keys' copy went: `false` when the cache kept it; `true` for a query without keys.
    @discardableResult
    func dropCopy(afterUncertain method: PluginCall.Method, of query: any Query) async -> Bool {
        if query is any KeyedQuery || query is any MultiKeyedQuery { return await removeCopy(of: query) }
        if method == .delete {
            await dropCopy(of: query)
        } else if StoredListAnswerQuery.listing(of: query) != nil {
            await forgetListAnswer()
        }
        return true
    }

    /// Drops the cache's copy of what `query` names, which main may still hold (a write the cache took first and main
    /// then refused for good: main keeps the value from before it), as a failed write main may have taken is dropped
    /// (``dropCopy(afterUncertain:of:)``, what a delete would remove): the copy goes, and the cache's list answer with
    /// it, which would otherwise list every entry but the dropped one as the whole list — whichever repository over
    /// the cache stored that answer (``deleteListAnswer()``): another, or one before a restart, which this one's
    /// ``mayHoldListAnswer`` does not know of. Recorded as a write of `query` (``recordingWrite(_:_:)``), and
    /// announced as one: streams read again and show what main answers; none is told "deleted". A cache that keeps its
    /// copy, or a task cancelled while it waits for its keys' turn, drops nothing; streams still read again.
    ///
    /// What a composition that writes main itself (an offline outbox) drops a copy with: a `.cache` delete is a
    /// deletion, which leaves the list answer standing.
    ///
    /// - Parameter query: What the copy is of.
    /// - Returns: Whether the copy of the keys went: `false` when the cache kept it, which the caller (whose task may
    ///   have been cancelled) can then try again.
    @discardableResult
    package func dropCopy(mainMayHold query: any Query) async -> Bool {
        let dropped = try? await recordingWrite(query) {
            let dropped = await dropCopy(afterUncertain: .delete, of: query)
            // A rare path (a write main refused, a conflict): the answer goes even when this repository never held
            // one, at the cost of a second forget when it did (forgetting is idempotent).
            await deleteListAnswer()
            return dropped
        }
        changeBroadcaster.publishWrite(to: query)
        return dropped ?? false
    }

    /// Carries out the write plan of `operation` for a put of `input` (see
    /// ``runWrite(_:_:_:_:toMain:toCache:toCacheAfterMain:announce:)``), then announces the write of `query` to
    /// observers.
    ///
    /// - Parameters:
    ///   - method: The call's method, for ``Configuration/onMainAnswer``.
    ///   - input: What the first source is given.
    ///   - query: Where to write.
    ///   - operation: The operation whose write plan applies.
    ///   - toMain: Writes main; returns what the next step is given.
    ///   - toCache: Writes the cache; returns what the next step is given.
    ///   - toCacheAfterMain: Writes main's answer into the cache, when that differs from `toCache`.
    ///   - payload: Main's value in what the sources return, for ``StrataError/Code/cacheSyncFailed``.
    /// - Returns: What the last source returned.
    func runPut<Input: Sendable>(
        _ method: PluginCall.Method,
        _ input: Input,
        in query: any Query,
        _ operation: any RepositoryOperation,
        toMain: (Input) async throws -> Input,
        toCache: (Input) async throws -> Input,
        toCacheAfterMain: ((Input) async throws -> Input)? = nil,
        payload: (Input) -> any Sendable = { $0 }
    ) async throws -> Input {
        try await runWrite(
            writePlan(of: operation),
            method,
            query,
            input,
            toMain: toMain,
            toCache: toCache,
            toCacheAfterMain: toCacheAfterMain,
            payload: payload
        ) {
            changeBroadcaster.publishWrite(to: query)
        }
    }
}
