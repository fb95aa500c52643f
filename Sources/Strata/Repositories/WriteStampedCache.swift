/// A cache whose repositories share one table of write stamps (``CacheWriteStamps``): a write through any of them
/// keeps every main read of its keys that began before it, in any of them, from writing its older answer back.
///
/// The stores conform (each keeps its own table), and so do the wrappers that keep a store's keys (a validator,
/// plugins, a value mapping): a ``CacheRepository`` over one takes the store's table, so two repositories over one
/// store, with mains of their own, never undo each other's acknowledged writes. A cache that does not conform gets a
/// table of its own repository (and its copies).
package protocol WriteStampedCache: Sendable {
    /// The write stamps every repository over this cache shares.
    var writeStamps: CacheWriteStamps { get }
}

extension ValidatedDataSource: WriteStampedCache where Source: WriteStampedCache {
    /// The wrapped source's write stamps.
    package var writeStamps: CacheWriteStamps { source.writeStamps }
}

extension PluggedDataSource: WriteStampedCache where Source: WriteStampedCache {
    /// The wrapped source's write stamps.
    package var writeStamps: CacheWriteStamps { source.writeStamps }
}

extension MappedDataSource: WriteStampedCache where Source: WriteStampedCache {
    /// The wrapped source's write stamps.
    package var writeStamps: CacheWriteStamps { source.writeStamps }
}
