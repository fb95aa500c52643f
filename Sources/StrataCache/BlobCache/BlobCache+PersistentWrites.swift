import Foundation
import Strata

extension BlobCache {
    /// When a download reaches a ``BlobCache``'s persistent layer.
    public enum PersistentWrites: Sendable, Hashable {
        /// Before the fetch returns (the default): a fetch that returns has stored its blob on disk, and a
        /// write that fails fails the fetch with ``Strata/StrataError/Code/cacheSyncFailed``.
        case beforeReturning

        /// After the fetch returns, one at a time and in order, on a queue of the cache's own: a cold fetch
        /// costs the download alone, not the file's creation as well.
        ///
        /// Until its write is done, a blob is served from memory and, once purged from there, from the queue
        /// itself. ``BlobCache/remove(_:)`` drops the blob's queued write and waits only for its write in progress, if
        /// one is, not for the rest of the queue; ``BlobCache/removeAll()`` and ``BlobCache/cleanPersistent()``
        /// by ``CleaningRule/all`` drop every queued write and wait for the one in progress. Cleaning by
        /// ``CleaningRule/expiredOnly`` judges the blobs on disk only: a blob still queued, stale or not,
        /// is written after it (await ``BlobCache/flush()`` first to clean it too). What a crash can lose is the
        /// writes not done yet — never a blob already written, and never a blob half written (each write is the
        /// persistent layer's own atomic write). A write that
        /// fails is counted in ``BlobCache/persistentWriteFailures`` and its blob stays in memory only.
        /// ``BlobCache/flush()`` waits for every queued write. At most
        /// ``PersistentLayer/writeBehindLimit`` bytes of downloads (64 MiB by default) wait in the queue: a fetch
        /// whose download does not fit waits (one that must not be stored never does), without blocking a thread,
        /// for the writes ahead of it, so a disk slower than the network holds the fetches back instead of filling
        /// memory. The fetches waiting hold as
        /// much again at most (and at least 64 MiB): past it (a disk that stalls while fetches of new URLs go on) a fetch returns its blob
        /// without storing it on disk, counted as a failed write, and any older copy on disk is dropped.
        ///
        /// A cache released with writes still queued finishes them first, and keeps its folder until then: a new
        /// cache on the same folder throws ``Strata/StrataError/Code/alreadyInUse`` meanwhile. Await
        /// ``BlobCache/flush()`` before releasing a cache whose folder is opened again.
        case behind
    }

    /// The number of queued persistent writes that failed (``PersistentWrites/behind``); such blobs stayed in
    /// memory only.
    public var persistentWriteFailures: Int { writes.failures }

    /// Waits until every persistent write queued so far is done (``PersistentWrites/behind``); returns at once
    /// when none is queued, and when the calling task is cancelled (the writes go on). Suspends; never blocks a
    /// thread.
    public func flush() async {
        await writes.flush()
    }

    /// A download waiting to be written (``PersistentWrites/behind``).
    struct QueuedWrite: Sendable {
        var data: Data
        var eTag: String?
        var lastModified: String?
        var record: FreshnessRecord

        /// Whether `other` is this write as queued, not another download queued since: the same record, validators
        /// and bytes.
        func isSameVersion(as other: QueuedWrite) -> Bool {
            record == other.record && eTag == other.eTag && lastModified == other.lastModified
                && data.isSameBytes(as: other.data)
        }

        /// A removal queued behind a running write: stale, so reads wait for it or skip it.
        static let removal = QueuedWrite(
            data: Data(),
            record: FreshnessRecord(
                freshUntil: .distantPast,
                lifetime: 0,
                staleIfError: nil,
                mustRevalidate: true,
                noCache: true,
                contentHash: 0
            )
        )
    }
}
