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
    ///   - body: The call to the wrapped source or repository.
    @usableFromInline
    func intercept<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        operation: (any RepositoryOperation)? = nil,
        value: (any Sendable)? = nil,
        _ body: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        let call = PluginCall(method: method, query: query, operation: operation, source: name, value: value)
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
    ///   - value: The value being written, if any; read only when a plugin observes failures.
    ///   - body: The call to the wrapped source or repository, with its outcome.
    @inlinable
    func count<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        operation: (any RepositoryOperation)? = nil,
        value: @autoclosure () -> (any Sendable)? = nil,
        _ body: () async throws -> (value: R, outcome: CallOutcome)
    ) async throws -> R {
        let start = startTiming()
        do {
            let (result, outcome) = try await body()
            report(counted(method, operation, outcome, nil, since: start), query, operation, value: nil)
            return result
        } catch {
            let outcome = CallOutcome(method, error: error)
            report(counted(method, operation, outcome, error, since: start), query, operation, value: value())
            throw error
        }
    }

    /// The start of a call that is timed, or `nil`: one call in ``timingMask`` + 1.
    @usableFromInline
    func startTiming() -> ContinuousClock.Instant? {
        timingMask == 0 || callsCounted.add(1) & timingMask == 0 ? .now : nil
    }

    /// The report of a call that ended now.
    @usableFromInline
    func counted(
        _ method: PluginCall.Method,
        _ operation: (any RepositoryOperation)?,
        _ outcome: CallOutcome,
        _ error: (any Error)?,
        since start: ContinuousClock.Instant?
    ) -> CountedCall {
        let duration = start.map { $0.duration(to: .now) }
        return CountedCall(
            source: name,
            method: method,
            operationName: operation?.name,
            outcome: outcome,
            error: error,
            duration: duration
        )
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
