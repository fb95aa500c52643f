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

    /// Runs `body` observed by the plugins, when they only observe: specialised for the call, not inlined.
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
        let call = PluginCall(method: method, query: query, operation: operation, source: name, value: value())
        return try await CallTrail.observe(call, next: body) { report($0, $1) }
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
