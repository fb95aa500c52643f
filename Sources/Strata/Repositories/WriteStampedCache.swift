/// A cache whose repositories share one table of write stamps (``CacheWriteStamps``): a write through any of them
/// keeps every main read of its keys that began before it, in any of them, from writing its older answer back.
///
/// The stores conform (each keeps its own table), and so do the wrappers that keep a store's keys (a validator,
/// plugins, a value mapping, the type-erased ``AnyDataSource`` of a store): a ``CacheRepository`` over one takes the
/// store's table, so two repositories over one store, with mains of their own, never undo each other's acknowledged
/// writes; and a repository whose *main* is a store records its writes in that store's table too, for the
/// repositories whose cache it is. A cache that does not conform (an app's own wrapper: the protocol is not public)
/// gets a table of its own repository (and its copies).
///
/// ``CacheRepositorySource`` must not conform: a write-back into a store holds the store's turn while it writes, and
/// a repository used as that store would wait for the same turn to begin its own write.
package protocol WriteStampedCache: Sendable {
    /// The write stamps every repository over this cache shares; `nil` when it wraps a source that keeps none.
    var sharedWriteStamps: CacheWriteStamps? { get }
}

extension ValidatedDataSource: WriteStampedCache where Source: WriteStampedCache {
    /// The wrapped source's write stamps.
    package var sharedWriteStamps: CacheWriteStamps? { source.sharedWriteStamps }
}

extension PluggedDataSource: WriteStampedCache where Source: WriteStampedCache {
    /// The wrapped source's write stamps.
    package var sharedWriteStamps: CacheWriteStamps? { source.sharedWriteStamps }
}

extension MappedDataSource: WriteStampedCache where Source: WriteStampedCache {
    /// The wrapped source's write stamps.
    package var sharedWriteStamps: CacheWriteStamps? { source.sharedWriteStamps }
}

extension DataSourceAssembler: WriteStampedCache {
    /// The put part's write stamps, when it keeps them (a store, or a wrapper of one).
    package var sharedWriteStamps: CacheWriteStamps? { parts.putter.writeStamps }
}

extension CacheWriteStamps {
    /// The table `source` keeps, if it is a store or a wrapper of one (``WriteStampedCache``).
    @usableFromInline
    static func kept(by source: Any) -> CacheWriteStamps? {
        (source as? any WriteStampedCache)?.sharedWriteStamps
    }
}
