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
        /// itself; ``BlobCache/remove(_:)``, cleaning and ``BlobCache/removeAll()`` wait for the writes queued
        /// before them. What a crash can lose is the writes not done yet — never a blob already written, and
        /// never a blob half written (each write is the persistent layer's own atomic write). A write that
        /// fails is counted in ``BlobCache/persistentWriteFailures`` and its blob stays in memory only.
        /// ``BlobCache/flush()`` waits for every queued write.
        case behind
    }

    /// The number of queued persistent writes that failed (``PersistentWrites/behind``); such blobs stayed in
    /// memory only.
    public var persistentWriteFailures: Int { writeQueue.state.withLock { $0.failures } }

    /// Waits until every persistent write queued so far is done (``PersistentWrites/behind``); returns at once
    /// when none is queued.
    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            writeQueue.queue.async { continuation.resume() }
        }
    }

    /// Queues the persistent write of a download; the write runs after the fetch returns.
    func enqueuePersistent(_ write: WriteQueue.Write, forKey key: String) {
        let generation = writeQueue.add(write, forKey: key)
        writeQueue.queue.async { [self] in
            // The cache stays alive until its queued writes are done.
            guard let write = writeQueue.write(forKey: key, generation: generation) else { return }
            do {
                try storePersistent(
                    write.data,
                    forKey: key,
                    eTag: write.eTag,
                    lastModified: write.lastModified,
                    record: write.record
                )
                writeQueue.finish(key, generation: generation, failed: false)
            } catch {
                writeQueue.finish(key, generation: generation, failed: true)
            }
        }
    }

    /// The queued, not yet written download for `key`, if any.
    func queuedWrite(forKey key: String) -> WriteQueue.Write? {
        writeQueue.state.withLock { $0.writes[key] }
    }

    /// Runs `body` after every write queued so far, with no write running meanwhile.
    func afterQueuedWrites<T>(_ body: () throws -> T) rethrows -> T {
        try writeQueue.queue.sync(execute: body)
    }

    /// Waits, without blocking a thread, until the write queued for `key` (if any) is done, so the persistent
    /// layer's files say what the cache knows.
    func settleQueuedWrite(forKey key: String) async {
        if queuedWrite(forKey: key) != nil { await flush() }
    }

    /// The persistent writes a ``BlobCache`` has queued (``PersistentWrites/behind``).
    final class WriteQueue: Sendable {
        /// A download waiting to be written.
        struct Write: Sendable {
            var data: Data
            var eTag: String?
            var lastModified: String?
            var record: FreshnessRecord
            var generation: UInt64 = 0
        }

        struct State {
            var writes: [String: Write] = [:]
            var nextGeneration: UInt64 = 0
            var failures = 0
        }

        let queue = DispatchQueue(label: "Strata.BlobCache.persistentWrites", qos: .utility)
        let state = Locked(State())

        /// Records a write for `key`, replacing any older one not done yet; returns its generation.
        func add(_ write: Write, forKey key: String) -> UInt64 {
            state.withLock { state in
                state.nextGeneration += 1
                var write = write
                write.generation = state.nextGeneration
                state.writes[key] = write
                return state.nextGeneration
            }
        }

        /// The write of this generation for `key`, unless a later one replaced it or it was dropped.
        func write(forKey key: String, generation: UInt64) -> Write? {
            state.withLock { state in
                guard let write = state.writes[key], write.generation == generation else { return nil }
                return write
            }
        }

        /// Forgets a write once done, unless a later one for the key is waiting.
        func finish(_ key: String, generation: UInt64, failed: Bool) {
            state.withLock { state in
                if failed { state.failures += 1 }
                if state.writes[key]?.generation == generation { state.writes[key] = nil }
            }
        }

        /// Moves the freshness of a queued write (a lifetime extension before it is written).
        func extend(_ key: String, generation: UInt64, to freshUntil: Date) {
            state.withLock { state in
                if state.writes[key]?.generation == generation { state.writes[key]?.record.freshUntil = freshUntil }
            }
        }

        /// Drops the write queued for `key`, or every write.
        func drop(_ key: String? = nil) {
            state.withLock { state in
                if let key { state.writes[key] = nil } else { state.writes.removeAll() }
            }
        }
    }
}
