extension StrataPlugin {
    /// Every call runs through ``intercept(_:next:)``.
    public func participation(in attachment: PluginAttachment) -> PluginParticipation { .intercepts }

    /// Does nothing.
    public func callDidFinish(_ observed: ObservedCall, result: (any Sendable)?) {}

    /// Does nothing.
    public func callDidFail(_ call: PluginCall, error: any Error) {}

    /// Runs the call as the plugin's participation for it says: reported to ``callDidFinish(_:result:)`` or, if it
    /// throws, to ``callDidFail(_:error:)``; what a plugin that only observes is when called as a middleware.
    public func intercept<R: Sendable>(
        _ call: PluginCall,
        next: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        try await observe(call, as: participation(in: PluginAttachment(of: call)), next: next)
    }

    /// Runs `next` and reports it to this plugin as `participation` says; a plugin that intercepts is not reported to.
    func observe<R: Sendable>(
        _ call: PluginCall,
        as participation: PluginParticipation,
        next: () async throws -> R
    ) async throws -> R {
        switch participation.kind {
        case .skipped, .intercepts:
            return try await next()
        case .failures:
            do {
                return try await next()
            } catch {
                callDidFail(call, error: error)
                throw error
            }
        case .observes:
            return try await CallTrail.observe(call, next: next) { observed, result in
                callDidFinish(observed, result: result)
            }
        case .counts:
            return try await CallTrail.observe(call, next: next) { observed, _ in
                participation.counter?.count(CountedCall(observed))
            }
        }
    }
}

/// A plugin that observes, as a middleware in a chain that also holds plugins that intercept, so that it keeps
/// its place in the order.
struct ObservingStep: StrataPlugin {
    let plugin: any StrataPlugin
    let participation: PluginParticipation

    func intercept<R: Sendable>(
        _ call: PluginCall,
        next: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        try await plugin.observe(call, as: participation, next: next)
    }
}
