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
/// ```swift
/// struct FailFastPlugin: StrataPlugin {
///     let isOpen: @Sendable () -> Bool
///
///     func intercept<R: Sendable>(
///         _ call: PluginCall,
///         next: @escaping @Sendable () async throws -> R
///     ) async throws -> R {
///         if isOpen() { throw StrataError(.network, "Circuit open for \(call.source)") }
///         return try await next()
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
