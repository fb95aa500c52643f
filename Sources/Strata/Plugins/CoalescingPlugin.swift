/// A plugin that makes concurrent identical reads share one call to the source.
///
/// Two `get` (or `getAll`) calls are identical when they are of the same source or repository — the same
/// `plugins(_:)` wrapper and its copies: one plugin attached to two sources of one type and name never hands one's
/// value to the other — with the same method and equal queries — queries that are `Hashable`; a query that is not
/// is never coalesced — and, for a repository, equal operations (an operation that is not `Hashable`, such as
/// ``CacheSyncOperation``, is never coalesced; ``CacheRepository`` coalesces its own main reads instead). Writes and
/// deletes are never coalesced, and a read never joins one that began before a write of its keys through the
/// plugin that began or ended since: a read that starts after a `put` or `delete` returned never gets the value
/// from before it, which a ``CacheRepository`` over the source would then store in its cache. Writes are told
/// apart by the keys they name (as ``CacheRepository`` tells its write-backs, in 256 stripes): a write of other
/// keys does not split the reads of a hot one; a write that names no key (a listing, a tag) splits them all.
///
/// A conditional read (``GetDataSource/getIfModified(_:since:)``) shares only with one that sends equal validators
/// (entity tag and `Last-Modified` date): its *not modified* holds for those validators alone. It never shares with a
/// plain read.
///
/// An answer whose metadata says it must not be stored (``EntryMetadata/isStorable``: for HTTP, `no-store`, and in a
/// cache shared by many users `private`, a `Vary` on a request field, an answer to credentials) goes only to the caller
/// whose call read it: the callers that joined that call each call the source themselves.
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
        let attachment: Int
        let source: String
        let resultType: ObjectIdentifier
        let query: AnyHashable
        let operation: AnyHashable?
        /// A conditional read's validators; `nil` for a plain read.
        let validators: PluginCall.Validators?
        /// How many times a write of the read's keys through the plugin began or ended before the read began.
        let writesBefore: UInt64
    }

    private let coalescer = RequestCoalescer<Key, any Sendable>()

    /// Counts each write through the plugin twice, by its keys, as it begins and as it ends: a read shares only with
    /// reads of its keys that began at the same count, so never with one that began before a write it follows.
    private let writes = CacheWriteStamps()

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
        guard call.method.isRead else { return try await writes.recordingWrite(call.query) { try await next() } }
        guard let query = call.query as? any Hashable else { return try await next() }
        var operation: AnyHashable?
        if let callOperation = call.operation {
            guard let hashable = callOperation as? any Hashable else { return try await next() }
            operation = AnyHashable(hashable)
        }
        let key = Key(
            method: call.method,
            attachment: call.attachment,
            source: call.source,
            resultType: ObjectIdentifier(R.self),
            query: AnyHashable(query),
            operation: operation,
            validators: call.validators,
            writesBefore: writes.stamp(call.query).sum
        )
        let value = try await coalescer.run(key: key, sharingOnly: isShareableAnswer) { try await next() }
        guard let result = value as? R else {
            throw StrataError(.dataSerialization, "A shared read returned \(type(of: value)), not \(R.self)")
        }
        return result
    }
}
