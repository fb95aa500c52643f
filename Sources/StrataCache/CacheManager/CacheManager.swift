import Foundation
import Strata
import StrataJSONFile
import StrataMemory
import StrataNetwork

/// Beagle's cache layer, ready made: references in a count- and size-capped, least-recently-used JSON store on disk
/// with a small memory layer in front, valid for their own `maxAge` or a default of 300 seconds.
///
/// ```swift
/// let cache = try CacheManager(configuration: .init(folder: cachesURL.appendingPathComponent("beagle")))
/// cache.addToCache(CacheReference(identifier: url.absoluteString, data: png, hash: "\"v1\"", timeOfCreation: Date()))
/// if let reference = cache.getReference(identifiedBy: url.absoluteString), cache.isValid(reference: reference) {
///     render(reference.data)
/// }
/// ```
///
/// - The persistent store is a `JSONFileDataSource` of ``CacheReference`` values capped
///   at ``Configuration/diskMaximumCapacity`` references and ``Configuration/diskMaximumSize`` bytes (least
///   recently written or read evicted first, across restarts). Each reference keeps its own
///   ``CacheReference/maxAge`` and ``CacheReference/timeOfCreation``.
/// - The memory layer is a `MemoryDataSource` capped at
///   ``Configuration/memoryMaximumCapacity`` references and ``Configuration/memoryMaximumSize`` bytes of their
///   data; a disk hit is copied into it. Every read is a use, as in
///   Beagle: a memory hit marks the reference most recently used in the persistent store too (one index line,
///   no file read), so an often-read reference is never the one evicted.
/// - ``getReference(identifiedBy:)`` returns a reference whether valid or not, so its hash can be sent to
///   the server (see ``CachedFetcher``); ``isValid(reference:)`` decides freshness with the injected clock.
///   Unlike the Core Data sample in Beagle's guide, reading a reference does not reset its time of creation.
/// - A corrupt entry on disk is moved aside by the store and reads as `nil`, so the caller fetches again; so is a
///   reference stored under another identifier than its own (removed, and reported to
///   ``Configuration/diagnostics``).
public final class CacheManager: CacheManagerProtocol {
    /// The folder, capacities, default validity and clock.
    public let configuration: Configuration

    /// The persistent store of references.
    public let persistentStore: JSONFileDataSource<CacheReference>

    /// The memory layer in front of the persistent store.
    public let memoryLayer: MemoryDataSource<CacheReference>

    /// Counts the writes into (and clears of) ``memoryLayer``, so that a reference read from disk goes into memory only
    /// if none was written since the read began.
    private let writtenToMemory = PutBackGuard()

    /// Serialises the writes of one identifier: a write to memory then to disk, or a write that depends on the stored
    /// version (a renewal, a stale mark), never interleaves with another write of it, which could leave memory and
    /// disk at different versions, or an older version renewed over a newer one. Also whose reports (the manager's and
    /// its store's) are held back while a write holds one of its locks.
    private let writing: KeyLocks

    /// How many clears began: a reference a fetcher fetched before one is not added after it.
    private let clears = AtomicCount()

    /// How many stale marks began (a fetcher's, after an unsafe request succeeded): a reference a fetch brought
    /// while one was made is stored stale, since it may be the version from before the request.
    private let staleMarks = AtomicCount()

    /// Opens the manager's persistent store, creating its folder when missing.
    ///
    /// - Parameter configuration: The folder, capacities, default validity and clock.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/io`` when the store cannot be
    ///   opened, ``Strata/StrataError/Code/invalidArgument`` for capacities or a disk size below 1, or a negative
    ///   memory size or `cacheMaxAge` (zero revalidates every reference without a validity of its own).
    public init(configuration: Configuration) throws {
        guard configuration.diskMaximumCapacity >= 1, configuration.memoryMaximumCapacity >= 1,
            configuration.diskMaximumSize >= 1, configuration.memoryMaximumSize >= 0, configuration.cacheMaxAge >= 0
        else {
            throw StrataError(
                .invalidArgument,
                "The capacities and disk size of a CacheManager must be at least 1, and its memory size and "
                    + "cacheMaxAge at least 0"
            )
        }
        self.configuration = configuration
        let writing = KeyLocks(stripes: 16)
        self.writing = writing
        // The store's reports wait, as the manager's own, until a write's lock is released: a diagnostics closure
        // that wrote to the manager would otherwise wait for that lock for ever.
        let owner = ObjectIdentifier(writing)
        let diagnostics = configuration.diagnostics.map { diagnostics in
            { @Sendable (report: StrataError) in HeldReports.deliver(report, of: owner, to: diagnostics) }
        }
        persistentStore = try JSONFileDataSource(
            configuration: .init(
                folder: configuration.folder,
                countLimit: configuration.diskMaximumCapacity,
                maxSize: configuration.diskMaximumSize,
                clock: configuration.clock,
                diagnostics: diagnostics
            )
        )
        memoryLayer = MemoryDataSource(
            configuration: .init(
                countLimit: configuration.memoryMaximumCapacity,
                costLimit: configuration.memoryMaximumSize,
                cost: { $0.data.count },
                clock: configuration.clock
            )
        )
    }

    /// Opens a manager with the default capacities (150 on disk, 15 in memory) and validity (300 s).
    ///
    /// - Parameters:
    ///   - folder: The folder of the persistent store.
    ///   - clock: The clock.
    /// - Throws: As ``init(configuration:)``.
    public convenience init(folder: URL, clock: any WallClock = SystemClock()) throws {
        try self.init(configuration: Configuration(folder: folder, clock: clock))
    }

    /// Stores `reference` in memory and on disk, evicting the least recently used beyond the capacities.
    ///
    /// A disk error (a reference over ``Configuration/diskMaximumSize`` included) is reported to
    /// ``Configuration/diagnostics``, and the reference the disk held under its identifier, now out of date, is
    /// removed: the new one then lives in memory only, while its memory layer keeps it (not at all when it is also
    /// over ``Configuration/memoryMaximumSize``).
    ///
    /// - Parameter reference: The reference.
    public func addToCache(_ reference: CacheReference) {
        inTurn(of: reference.identifier) { store(reference) }
    }

    /// Stores `reference` in memory and on disk; the caller holds the turn of its identifier.
    private func store(_ reference: CacheReference) {
        writtenToMemory.write { memoryLayer.setValue(reference, forKey: reference.identifier) }
        do {
            try persistentStore.setValue(reference, forKey: reference.identifier)
        } catch {
            report(error)
            do {
                try persistentStore.removeValue(forKey: reference.identifier)
            } catch {
                report(error)
            }
        }
    }

    /// Returns the reference stored under `id`, from memory or else from disk (then kept in memory), valid
    /// or not; `nil` when there is none or its file was corrupt.
    ///
    /// A reference stored under `id` whose own ``CacheReference/identifier`` is another (a copied or edited store,
    /// a value put through ``persistentStore`` or ``memoryLayer`` by hand) is corrupt: it is reported to
    /// ``Configuration/diagnostics`` with ``Strata/StrataError/Code/corrupt``, removed, and `nil` returned — a
    /// revalidation would otherwise store one URL's body under the other's identifier.
    ///
    /// - Parameter id: The reference's identifier.
    public func getReference(identifiedBy id: String) -> CacheReference? {
        guard let reference = storedReference(identifiedBy: id) else { return nil }
        guard reference.identifier == id else {
            report(
                StrataError(
                    .corrupt,
                    "The CacheManager's reference stored under \(StrataError.quoted(key: id)) is identified by "
                        + "\(StrataError.quoted(key: reference.identifier)); it was removed"
                )
            )
            // Removed only if it is still misfiled in the key's turn: a good reference written meanwhile stays.
            inTurn(of: id) {
                guard let stored = storedReference(identifiedBy: id), stored.identifier != id else { return }
                removeStored(id)
            }
            return nil
        }
        return reference
    }

    /// The reference stored under `id`, from memory or else from disk (then kept in memory), whatever its
    /// identifier.
    private func storedReference(identifiedBy id: String) -> CacheReference? {
        // Read before memory is asked: a write between the miss and the disk read is then seen.
        let writesBefore = writtenToMemory.mark()
        if let reference = memoryLayer.value(forKey: id) {
            // Beagle's recency: a read answered by memory is still a use of the capped store's entry, marked by one
            // line appended to the store's index. Best effort, as a disk read's mark is: a full or read-only disk
            // fails no read whose reference is good, and reports nothing.
            _ = try? persistentStore.markUsed(forKey: id)
            return reference
        }
        do {
            guard let reference = try persistentStore.value(forKey: id) else { return nil }
            // Kept in memory only when nothing was written there since the read began: a reference stored meanwhile
            // (a newer one, or one a POST marked stale) is newer than this copy, which must not replace it.
            let keptInMemory = writtenToMemory.putBack(readAt: writesBefore) {
                memoryLayer.setValue(reference, forKey: id)
            }
            return keptInMemory ? reference : memoryLayer.value(forKey: id) ?? reference
        } catch {
            report(error)
            return nil
        }
    }

    /// Whether `reference` is still valid: its time of creation plus its ``CacheReference/maxAge`` (or
    /// ``Configuration/cacheMaxAge``) is later than the clock's now. At the exact expiry instant it is not.
    ///
    /// A reference created later than now (written while the clock was ahead, or edited by hand) is not valid: its
    /// age is unknown, and it would otherwise stay valid for as long as that date is ahead, years perhaps. A
    /// revalidation renews it with the clock's now.
    ///
    /// - Parameter reference: The reference.
    public func isValid(reference: CacheReference) -> Bool {
        // The core's stored-time rule (a time of creation later than now included), with the reference's own maxAge
        // (or the default) and its time of creation.
        let maxAge = reference.maxAge ?? configuration.cacheMaxAge
        return StoredTimeValidator<CacheReference>(maxAge: .seconds(maxAge), clock: configuration.clock)
            .isValid(reference, context: ValidationContext(storedAt: reference.timeOfCreation))
    }

    /// Removes every reference, in memory and on disk; a disk error goes to ``Configuration/diagnostics``.
    public func clear() {
        clears.add(1)
        clearMemory()
        do {
            try persistentStore.removeAll()
        } catch {
            report(error)
        }
        // A read that began before the disk was cleared may have put a reference back meanwhile.
        clearMemory()
    }

    /// How many clears began, for ``addToCache(_:fetchedAfter:)``: taken when a fetch begins.
    var clearCount: Int { clears.value }

    /// Tests only: how many writes (or removals) found the turn of their identifier (or of one sharing its lock) taken
    /// by another, and waited for it, so far: a test waits for a write to be held behind another's so.
    package var turnsWaitedFor: Int { writing.waitCount }

    /// How many stale marks began: taken when a fetch begins.
    var staleMarkCount: Int { staleMarks.value }

    /// Counts a stale mark, before it is made.
    func countStaleMark() { staleMarks.add(1) }

    /// Adds a reference a fetch that began at `clearsBefore` (``clearCount``) fetched, unless the cache was cleared
    /// since: a clear is never undone by an answer that was on its way. A reference added as a clear began is removed
    /// again.
    func addToCache(_ reference: CacheReference, fetchedAfter clearsBefore: Int) {
        guard clears.value == clearsBefore else { return }
        addToCache(reference)
        if clears.value != clearsBefore { removeReference(identifiedBy: reference.identifier) }
    }

    /// Replaces the reference stored under `id` by what `change` makes of it (nothing is written for `nil`), in one turn
    /// of `id`: no other write of `id` lands between the read and the write. As for ``addToCache(_:fetchedAfter:)``,
    /// nothing is written after a clear that began since `clearsBefore`.
    ///
    /// - Returns: Whether a reference of `id` was stored (`change` is called only then); `false` after such a clear.
    func updateReference(
        identifiedBy id: String,
        fetchedAfter clearsBefore: Int,
        _ change: (CacheReference) -> CacheReference?
    ) -> Bool {
        guard clears.value == clearsBefore else { return false }
        let wrote: Bool? = inTurn(of: id) {
            guard let stored = storedReference(identifiedBy: id), stored.identifier == id else { return nil }
            guard let changed = change(stored) else { return false }
            store(changed)
            return true
        }
        if wrote == true, clears.value != clearsBefore { removeReference(identifiedBy: id) }
        return wrote != nil
    }

    /// Removes the reference stored under `id`, in memory and on disk; a disk error goes to
    /// ``Configuration/diagnostics``.
    func removeReference(identifiedBy id: String) {
        inTurn(of: id) { removeStored(id) }
    }

    /// Removes the reference stored under `id`; the caller holds the turn of `id`.
    private func removeStored(_ id: String) {
        writtenToMemory.write { memoryLayer.removeValue(forKey: id) }
        do {
            try persistentStore.removeValue(forKey: id)
        } catch {
            report(error)
        }
        // A read that found memory empty and read the disk before it was removed may have put its copy back.
        writtenToMemory.write { memoryLayer.removeValue(forKey: id) }
    }

    /// Empties the memory layer and counts it as a write, so a reference read from disk before it is not kept.
    private func clearMemory() {
        writtenToMemory.write { memoryLayer.removeAll() }
    }

    /// A fetcher that answers from this manager and the network, with the manager's clock.
    ///
    /// - Parameters:
    ///   - client: The HTTP client.
    ///   - hashHeader: The request header that carries a stale reference's hash.
    public func fetcher(client: HTTPClient = HTTPClient(), hashHeader: String = "If-None-Match") -> CachedFetcher {
        CachedFetcher(cacheManager: self, client: client, hashHeader: hashHeader, clock: configuration.clock)
    }

    /// Runs `body` in the write turn of `id`, with the manager's reports and its store's held back until it ends.
    private func inTurn<Result>(of id: String, _ body: () throws -> Result) rethrows -> Result {
        try HeldReports.holding(for: ObjectIdentifier(writing), to: configuration.diagnostics) {
            try writing.withLock(id, body)
        }
    }

    private func report(_ error: any Error) {
        guard let diagnostics = configuration.diagnostics else { return }
        let strataError =
            error as? StrataError
            ?? StrataError.io("The persistent store of the CacheManager failed", underlying: error)
        HeldReports.deliver(strataError, of: ObjectIdentifier(writing), to: diagnostics)
    }
}
