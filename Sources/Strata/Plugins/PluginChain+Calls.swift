import Dispatch

// The three ways a plugged source's or repository's call runs through its plugins, said once for both: a data
// source's calls have no operation, a repository's have one.
extension PluginChain {
    /// Runs `body` through the plugins as middleware (``Mode/intercepts``).
    ///
    /// - Parameters:
    ///   - method: The method called.
    ///   - query: The query of the call.
    ///   - operation: The repository operation; `nil` for a data source.
    ///   - value: The value being written, if any.
    ///   - since: The metadata of the copy a conditional read revalidates; `nil` for any other call.
    ///   - body: The call to the wrapped source or repository.
    @usableFromInline
    func intercept<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        operation: (any RepositoryOperation)? = nil,
        value: (any Sendable)? = nil,
        since: EntryMetadata? = nil,
        _ body: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        var call = PluginCall(
            method: method,
            query: query,
            operation: operation,
            source: name,
            value: value,
            attachment: attachment
        )
        call.validators = since.map(PluginCall.Validators.init)
        return try await runPlugins(middleware[...], call, body)
    }

    /// Runs `body` observed by the plugins, when they only observe or count: specialised for the call, not inlined.
    ///
    /// When they only count, the call is counted with the outcome its method and error give, which is exact for a
    /// data source and for a repository's writes; a repository read that does not report its own outcome runs
    /// inside a ``CallTrail``, as for observers.
    ///
    /// - Parameters:
    ///   - method: The method called.
    ///   - query: The query of the call.
    ///   - operation: The repository operation; `nil` for a data source.
    ///   - value: The value being written, if any; read only here, never on the direct path.
    ///   - body: The call to the wrapped source or repository.
    @inlinable @inline(never)
    func observe<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        operation: (any RepositoryOperation)? = nil,
        value: @autoclosure () -> (any Sendable)? = nil,
        _ body: () async throws -> R
    ) async throws -> R {
        if mode == .counts, operation == nil || !method.isRead {
            return try await count(method, query, operation: operation, value: value()) {
                (try await body(), CallOutcome(method, error: nil))
            }
        }
        let call = PluginCall(method: method, query: query, operation: operation, source: name, value: value())
        return try await CallTrail.observe(call, next: body) { report($0, $1) }
    }

    /// Runs `body` counted by the plugins, when they only count: `body` returns the value and the call's outcome.
    /// Inlined into the plugged call: no async frame of its own; the bookkeeping before and after is not.
    ///
    /// - Parameters:
    ///   - method: The method called.
    ///   - query: The query of the call.
    ///   - operation: The repository operation; `nil` for a data source.
    ///   - value: The value being written, if any; read only when the call throws.
    ///   - body: The call to the wrapped source or repository, with its outcome.
    @inlinable
    func count<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        operation: (any RepositoryOperation)? = nil,
        value: @autoclosure () -> (any Sendable)? = nil,
        _ body: () async throws -> (value: R, outcome: CallOutcome)
    ) async throws -> R {
        let started = startCounting()
        do {
            let (result, outcome) = try await body()
            countReturned(method, query, operationName: operation?.name, outcome, started: started)
            return result
        } catch {
            throw countThrew(method, query, operation: operation, value: value(), error, started: started)
        }
    }

    /// Starts counting a call: the monotonic clock's reading in nanoseconds when the call is timed (one call in
    /// ``timingMask`` + 1), `0` when it is not.
    ///
    /// A plain integer, so that a plugged call holds no optional clock instant across its `await`.
    @usableFromInline
    func startCounting() -> UInt64 {
        guard timingMask == 0 || callsCounted.tick() & timingMask == 0 else { return 0 }
        return max(DispatchTime.now().uptimeNanoseconds, 1)
    }

    /// Counts a call that returned with `outcome`, started at `started` (``startCounting()``).
    ///
    /// A returned call needs only the operation's name: no plugin observes it but the counters, and only a data
    /// source's call is a step of a repository call's trail.
    ///
    /// - Parameters:
    ///   - method: The method called.
    ///   - query: The query of the call.
    ///   - operationName: The repository operation's name; `nil` for a data source.
    ///   - outcome: How the call ended.
    ///   - started: What ``startCounting()`` returned for the call.
    @usableFromInline
    func countReturned(
        _ method: PluginCall.Method,
        _ query: any Query,
        operationName: String?,
        _ outcome: CallOutcome,
        started: UInt64
    ) {
        if operationName == nil, CallTrail.mayBeBound {
            CallTrail.record(
                PluginCall(method: method, query: query, operation: nil, source: name, value: nil),
                error: nil
            )
        }
        let nanoseconds = Self.nanoseconds(since: started)
        if let report = returnedReports.report(method, operationName, outcome) {
            report._withUnsafeGuaranteedRef { $0.count(nanoseconds: nanoseconds) }
            return
        }
        let counted = CountedCall(
            source: name,
            method: method,
            operationName: operationName,
            outcome: outcome,
            error: nil,
            duration: nanoseconds.map { .nanoseconds($0) }
        )
        countAll(counted)
    }

    /// Hands `counted` to every counter, innermost first.
    ///
    /// Through unmanaged references to the boxes that hold the counters: the call retains nothing. A counter
    /// copied out of an array of existentials is retained and released on every call, and those atomic
    /// operations stall the reads around them: on a memory-cache hit they cost more than the counting.
    func countAll(_ counted: CountedCall) {
        for box in counterReferences { box._withUnsafeGuaranteedRef { $0.count(counted) } }
    }

    /// Counts a call that threw `error`, started at `started` (``startCounting()``), and returns the error to throw.
    ///
    /// - Parameters:
    ///   - method: The method called.
    ///   - query: The query of the call.
    ///   - operation: The repository operation; `nil` for a data source.
    ///   - value: The value being written, if any; read only when a plugin observes failures.
    ///   - error: The error the call threw.
    ///   - started: What ``startCounting()`` returned for the call.
    @usableFromInline
    func countThrew(
        _ method: PluginCall.Method,
        _ query: any Query,
        operation: (any RepositoryOperation)?,
        value: @autoclosure () -> (any Sendable)? = nil,
        _ error: any Error,
        started: UInt64
    ) -> any Error {
        let counted = CountedCall(
            source: name,
            method: method,
            operationName: operation?.name,
            outcome: CallOutcome(method, error: error),
            error: error,
            duration: Self.duration(since: started)
        )
        report(counted, query, operation, value: value())
        return error
    }

    /// How long ago a counted call started, when it was timed (`started` is not `0`).
    static func duration(since started: UInt64) -> Duration? {
        nanoseconds(since: started).map { .nanoseconds($0) }
    }

    /// How many nanoseconds ago a counted call started, when it was timed (`started` is not `0`).
    @inline(__always)
    static func nanoseconds(since started: UInt64) -> Int64? {
        guard started != 0 else { return nil }
        let now = DispatchTime.now().uptimeNanoseconds
        return Int64(clamping: now >= started ? now - started : 0)
    }

    /// Reports a call that threw to the plugins that observe failures, and returns the error to throw.
    ///
    /// - Parameters:
    ///   - method: The method called.
    ///   - query: The query of the call.
    ///   - operation: The repository operation; `nil` for a data source.
    ///   - value: The value being written, if any; read only when a plugin observes failures.
    ///   - error: The error the call threw.
    @usableFromInline
    func failure(
        _ method: PluginCall.Method,
        _ query: any Query,
        operation: (any RepositoryOperation)? = nil,
        value: @autoclosure () -> (any Sendable)? = nil,
        _ error: any Error
    ) -> any Error {
        if mode == .failures {
            reportFailure(
                PluginCall(method: method, query: query, operation: operation, source: name, value: value()),
                error
            )
        }
        return error
    }
}
