/// A value that sees every call of a data source or repository before and after it runs, and may change
/// its outcome.
///
/// A plugin is a middleware: ``intercept(_:next:)`` receives the call's description and a `next` closure
/// that runs the rest of the chain (the following plugins, then the source). A plugin may
///
/// - observe: note the start, call `next()`, note the result or the error and the duration (logging,
///   metrics);
/// - retry: call `next()` again after a failure;
/// - replace the outcome: return a fallback value instead of an error, or throw before calling `next()`
///   at all (fail fast, fault injection);
/// - share the work: run `next()` once for several identical calls in flight (coalescing).
///
/// Attach plugins with `plugins(_:)` on any data source or repository. The first plugin of the array is
/// the outermost: it sees the call first and the outcome last.
///
/// A plugin that only watches calls (logs, metrics) need not be a middleware: it says so in
/// ``participation(in:)``, once, when it is attached, and is then told about each call after it ended
/// (``callDidFinish(_:result:)``), only about failures (``callDidFail(_:error:)``), or nothing at all — a call then
/// costs no closure, and a source or repository whose plugins are all skipped is called directly
/// (``PluginParticipation``):
///
/// ```swift
/// struct SlowCallReporter: StrataPlugin {
///     let report: @Sendable (String) -> Void
///
///     func participation(in attachment: PluginAttachment) -> PluginParticipation { .observes }
///
///     func callDidFinish(_ observed: ObservedCall, result: (any Sendable)?) {
///         guard observed.duration > .milliseconds(100) else { return }
///         report("\(observed.call.source) \(observed.call.method) took \(observed.duration)")
///     }
/// }
/// ```
public protocol StrataPlugin: Sendable {
    /// Runs one call: usually some work, then `next()`, then some more work.
    ///
    /// The result type `R` is the call's: the value for `get` and `put`, an array for `getAll` and
    /// `putAll`, `Void` for `delete`. A plugin that serves a value of its own checks it with `as? R`.
    ///
    /// - Parameters:
    ///   - call: What is being called: method, query, operation, source name and the value written.
    ///   - next: Runs the rest of the chain; it may be called zero, one or several times, and may be
    ///     stored to run in another task.
    /// - Returns: The outcome the caller receives.
    /// - Throws: The error the caller receives; Strata's own plugins throw ``StrataError``.
    func intercept<R: Sendable>(
        _ call: PluginCall,
        next: @escaping @Sendable () async throws -> R
    ) async throws -> R

    /// How the plugin takes part in the calls of the source or repository it is attached to; asked once, when
    /// `plugins(_:name:)` wraps it. ``PluginParticipation/intercepts`` by default.
    ///
    /// - Parameter attachment: The name of the source or repository, and whether it is a data source.
    func participation(in attachment: PluginAttachment) -> PluginParticipation

    /// Receives a call that ended, when the plugin ``PluginParticipation/observes``: its outcome, origin, error and
    /// duration, and what it returned. Called in the task of the call; it must be quick. Nothing by default.
    ///
    /// - Parameters:
    ///   - observed: The call and how it ended.
    ///   - result: What it returned, or `nil` when it threw.
    func callDidFinish(_ observed: ObservedCall, result: (any Sendable)?)

    /// Receives a call that threw, when the plugin ``PluginParticipation/observesFailures`` (misses included).
    /// Called in the task of the call; it must be quick. Nothing by default.
    ///
    /// - Parameters:
    ///   - call: The call.
    ///   - error: What it threw.
    func callDidFail(_ call: PluginCall, error: any Error)
}

/// Runs `body` through `plugins`, the first plugin outermost.
///
/// - Parameters:
///   - plugins: The plugins, outermost first.
///   - call: The call they see.
///   - body: The call to the wrapped source or repository.
func runPlugins<R: Sendable>(
    _ plugins: ArraySlice<any StrataPlugin>,
    _ call: PluginCall,
    _ body: @escaping @Sendable () async throws -> R
) async throws -> R {
    guard let first = plugins.first else { return try await body() }
    let rest = plugins.dropFirst()
    if rest.isEmpty { return try await first.intercept(call, next: body) }
    return try await first.intercept(call) { try await runPlugins(rest, call, body) }
}
