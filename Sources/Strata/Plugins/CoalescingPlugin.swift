/// A plugin that makes concurrent identical reads share one call to the source.
///
/// Two `get` (or `getAll`) calls are identical when they have the same method, the same source name and
/// equal queries — queries that are `Hashable`; a query that is not is never coalesced — and, for a
/// repository, equal operations (an operation that is not `Hashable`, such as ``CacheSyncOperation``,
/// is never coalesced; ``CacheRepository`` coalesces its own main reads instead). Writes and deletes are
/// never coalesced, and a read never joins one that began before a write through the plugin (to any source it is
/// attached to) that began or ended since: a read that starts after a `put` or `delete` returned never gets the
/// value from before it, which a ``CacheRepository`` over the source would then store in its cache.
///
/// Place it outermost to share everything below it (retries included), or after a logging plugin to log
/// every caller. Cancellation follows ``RequestCoalescer``: a cancelled caller stops waiting, the others
/// still get the result.
///
/// ```swift
/// let users = UsersAPI(client).plugins([CoalescingPlugin()])
/// ```
public final class CoalescingPlugin: StrataPlugin {
    private struct Key: Hashable, @unchecked Sendable {
        // `AnyHashable` is not declared `Sendable`; it only ever wraps `Sendable` queries and operations.
        let method: PluginCall.Method
        let source: String
        let resultType: ObjectIdentifier
        let query: AnyHashable
        let operation: AnyHashable?
        /// How many times a write through the plugin began or ended before the read began.
        let writesBefore: Int
    }

    private let coalescer = RequestCoalescer<Key, any Sendable>()

    /// Counts each write through the plugin twice, as it begins and as it ends: a read shares only with reads that
    /// began at the same count, so never with one that began before a write it follows.
    private let writes = AtomicCount()

    /// Creates the plugin.
    public init() {}

    /// The number of distinct reads in flight now.
    public var inFlightCount: Int { coalescer.inFlightCount }

    /// The number of callers waiting for a read in flight, the ones that started it included.
    public var waiterCount: Int { coalescer.waiterCount }

    /// Runs the call, or joins an identical one in flight.
    public func intercept<R: Sendable>(
        _ call: PluginCall,
        next: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        guard call.method.isRead else {
            writes.add(1)
            defer { writes.add(1) }
            return try await next()
        }
        guard let query = call.query as? any Hashable else { return try await next() }
        var operation: AnyHashable?
        if let callOperation = call.operation {
            guard let hashable = callOperation as? any Hashable else { return try await next() }
            operation = AnyHashable(hashable)
        }
        let key = Key(
            method: call.method,
            source: call.source,
            resultType: ObjectIdentifier(R.self),
            query: AnyHashable(query),
            operation: operation,
            writesBefore: writes.value
        )
        let value = try await coalescer.run(key: key) { try await next() }
        guard let result = value as? R else {
            throw StrataError(.dataSerialization, "A shared read returned \(type(of: value)), not \(R.self)")
        }
        return result
    }
}
