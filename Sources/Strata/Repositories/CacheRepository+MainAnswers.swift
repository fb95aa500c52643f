extension CacheRepository {
    /// A copy of the repository that also calls `handler` each time main answered a call of a plan (after the
    /// configuration's own ``Configuration/onMainAnswer``).
    ///
    /// The copy shares the repository's change broadcaster, coalesced main reads and background refreshes; calls
    /// made through the original do not call `handler`.
    ///
    /// ```swift
    /// let watched = users.observingMainAnswers { call in
    ///     if call.method.isRead { reachability.markReachable() }
    /// }
    /// ```
    ///
    /// - Parameter handler: Called with the method and query of each call main answered; it must return quickly.
    /// - Returns: The repository with the handler added.
    public func observingMainAnswers(_ handler: @escaping @Sendable (PluginCall) -> Void) -> CacheRepository {
        var copy = self
        let previous = configuration.onMainAnswer
        copy.configuration.onMainAnswer = { call in
            previous?(call)
            handler(call)
        }
        return copy
    }

    /// Tells the configuration's ``Configuration/onMainAnswer`` that main answered a call.
    func mainAnswered(_ method: PluginCall.Method, _ query: any Query) {
        configuration.onMainAnswer?(PluginCall(method: method, query: query, source: "main"))
    }
}
