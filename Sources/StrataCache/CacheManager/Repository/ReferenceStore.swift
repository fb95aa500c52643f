import Foundation
import Strata
import StrataNetwork

/// A ``CacheManagerProtocol`` as the cache of a ``CachedFetcher``'s repository: references keyed by identifier,
/// their hash as the entry's `ETag`, their time of creation as its stored date and their `maxAge` as its
/// freshness.
struct ReferenceStore: GetDataSource, PutDataSource, DeleteDataSource {
    let manager: any CacheManagerProtocol

    /// The ``CacheManager``'s clears when the fetch began (`nil` for another manager): a reference is not added after
    /// a clear that came meanwhile.
    private let clearsBefore: Int?

    /// The ``CacheManager``'s stale marks when the fetch began (`nil` for another manager): a reference stored while
    /// an unsafe request's mark was made may predate that request, so it is marked stale again after it is stored.
    private let staleMarksBefore: Int?

    /// A store over `manager`, made when a fetch begins.
    init(manager: any CacheManagerProtocol) {
        self.manager = manager
        clearsBefore = (manager as? CacheManager)?.clearCount
        staleMarksBefore = (manager as? CacheManager)?.staleMarkCount
    }

    func get(_ query: any Query) async throws -> CacheReference {
        try await getEntry(query).value
    }

    func getAll(_ query: any Query) async throws -> [CacheReference] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func getEntry(_ query: any Query) async throws -> StoredEntry<CacheReference> {
        let id = try Self.identifier(of: query)
        guard let reference = manager.getReference(identifiedBy: id) else { throw StrataError.miss(key: id) }
        return StoredEntry(value: reference, metadata: reference.metadata)
    }

    func put(_ value: CacheReference, in query: any Query) async throws -> CacheReference {
        addFetched(value)
        return value
    }

    func putAll(_ values: [CacheReference], in query: any Query) async throws -> [CacheReference] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    /// Stores a reference (the repository never asks for a `no-store` response's: its metadata is not
    /// storable): a full answer's as it came, with its own metadata; a revalidated one renewed by the `304`'s metadata
    /// the entry carries (the repository stores it so when the reference went while the `304` was on its way).
    func putEntry(_ entry: StoredEntry<CacheReference>, in query: any Query) async throws -> CacheReference {
        let reference = entry.metadata == entry.value.metadata ? entry.value : entry.value.renewed(by: entry.metadata)
        addFetched(reference)
        return reference
    }

    /// Stores the reference again after a `304`: a new time of creation, and the 304's hash and `maxAge` where it
    /// gave them — only while the stored reference is still the version the 304 confirmed (its hash is the one the
    /// request sent, ``EntryMetadata/renews(entryWithETag:lastModified:)``). A newer reference stored while the 304
    /// was on its way (another fetch's `200`) is left as it is:
    /// renewed, its bytes would carry the older version's hash and lifetime. That case answers `true`, for the core
    /// would otherwise store the revalidated reference over the newer one.
    ///
    /// In a ``CacheManager`` the check and the write are one turn of the identifier: a newer reference stored between
    /// them would otherwise be replaced by the renewed older one.
    func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        let id = try Self.identifier(of: query)
        let renewal = { (reference: CacheReference) -> CacheReference? in
            let stored = reference.metadata
            guard metadata.renews(entryWithETag: stored.eTag, lastModified: stored.lastModified) else { return nil }
            return reference.renewed(by: metadata)
        }
        if let manager = manager as? CacheManager, let clearsBefore {
            guard manager.updateReference(identifiedBy: id, fetchedAfter: clearsBefore, renewal) else { return false }
            markStaleAgainIfMarkedSince(id)
            return true
        }
        guard let reference = manager.getReference(identifiedBy: id) else { return false }
        if let renewed = renewal(reference) { addFetched(renewed) }
        return true
    }

    /// Drops the stored reference, which an answer that must not be stored (`no-store`, `Vary: *`) supersedes:
    /// removed from a ``CacheManager``; marked stale in another manager (which has no removal), so it is revalidated
    /// before it is served again.
    func delete(_ query: any Query) async throws {
        let id = try Self.identifier(of: query)
        if let manager = manager as? CacheManager {
            manager.removeReference(identifiedBy: id)
        } else {
            markStale(identifiedBy: id)
        }
    }

    /// Marks the stored reference under `id` stale (kept, with its hash, for the next GET to revalidate), unless a
    /// ``CacheManager`` was cleared since the store was made.
    func markStale(identifiedBy id: String) {
        if let manager = manager as? CacheManager, let clearsBefore {
            manager.countStaleMark()
            _ = manager.updateReference(identifiedBy: id, fetchedAfter: clearsBefore) { $0.markedStale }
        } else if let stored = manager.getReference(identifiedBy: id) {
            add(stored.markedStale)
        }
    }

    /// Adds a reference the fetch brought (``add(_:)``), then marks it stale again when a stale mark began since the
    /// fetch did.
    private func addFetched(_ reference: CacheReference) {
        add(reference)
        markStaleAgainIfMarkedSince(reference.identifier)
    }

    /// Marks the reference stored under `id` stale when a ``CacheManager``'s stale mark began since the fetch did: the
    /// mark may have been made before the fetch's reference landed, which would have undone it.
    private func markStaleAgainIfMarkedSince(_ id: String) {
        guard let manager = manager as? CacheManager, let clearsBefore, let staleMarksBefore,
            manager.staleMarkCount != staleMarksBefore
        else { return }
        _ = manager.updateReference(identifiedBy: id, fetchedAfter: clearsBefore) { $0.markedStale }
    }

    /// Adds a reference to the manager, unless a ``CacheManager`` was cleared since the fetch began.
    private func add(_ reference: CacheReference) {
        if let manager = manager as? CacheManager, let clearsBefore {
            manager.addToCache(reference, fetchedAfter: clearsBefore)
        } else {
            manager.addToCache(reference)
        }
    }

    static func identifier(of query: any Query) throws -> String {
        guard let query = query as? KeyQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        return query.key
    }
}

/// A reference is valid as its manager says (its own `maxAge`, or the manager's default) and as the request allows:
/// not at all when it says `no-cache`, and no older than its `max-age` (RFC 9111, sections 5.2.1.1 and 5.2.1.4): its
/// age is the one the response arrived with (``CacheReference/initialAge``) plus the time since it was received.
struct ReferenceValidator: Validator {
    let manager: any CacheManagerProtocol
    /// The request's `Cache-Control`.
    let request: CacheControl
    /// The request as sent, whose fields a reference that varied on some must match.
    let sent: HTTPRequest
    /// The clock the reference's age is read by.
    let clock: any WallClock

    func isValid(_ value: CacheReference, context: ValidationContext) -> Bool {
        // A reference to a request that sent other values in the fields it varied on is not this request's answer.
        if let variedFields = value.variedFields, !sent.matches(variedFields: variedFields) { return false }
        guard !request.noCache, manager.isValid(reference: value) else { return false }
        guard let maxAge = request.maxAge else { return true }
        // A stored initial age is a file's number: a negative one would make the reference look younger.
        let age = clock.now().timeIntervalSince(value.timeOfCreation) + TimeInterval(max(value.initialAge ?? 0, 0))
        return age <= maxAge.timeInterval
    }
}

extension CacheReference {
    /// The reference as entry metadata: created at its time of creation, fresh for its `maxAge`, its hash as the
    /// `ETag` (none when empty).
    var metadata: EntryMetadata {
        EntryMetadata(
            storedAt: timeOfCreation,
            freshUntil: maxAge.map { timeOfCreation.addingTimeInterval(TimeInterval($0)) },
            eTag: hash.isEmpty ? nil : hash
        )
    }

    /// The reference renewed by a `304`'s metadata: created then, with its hash and `maxAge` where it gave them, and
    /// the 304's initial age (the stored one where it gave none).
    func renewed(by metadata: EntryMetadata) -> CacheReference {
        let created = metadata.storedAt ?? timeOfCreation
        let maxAge = metadata.freshUntil.flatMap { wholeSeconds($0.timeIntervalSince(created)) }
        return CacheReference(
            identifier: identifier,
            data: data,
            hash: metadata.eTag ?? hash,
            maxAge: maxAge ?? self.maxAge,
            timeOfCreation: created,
            initialAge: metadata.initialAge.map(wholeSeconds) ?? initialAge,
            variedFields: variedFields
        )
    }
}

/// `duration` in whole seconds, saturated to `Int`'s range.
func wholeSeconds(_ duration: Duration) -> Int {
    Int(clamping: duration.saturatedComponents.seconds)
}

/// `interval` in whole seconds, saturated to `Int`'s range; `nil` for a NaN (dates from a file or a server may
/// be anything, and converting a Double outside `Int64`'s range traps).
private func wholeSeconds(_ interval: TimeInterval) -> Int? {
    let rounded = interval.rounded()
    guard !rounded.isNaN else { return nil }
    if rounded >= Double(Int.max) { return .max }
    if rounded <= Double(Int.min) { return .min }
    return Int(rounded)
}

extension CacheReference {
    /// The reference made stale by its date, not by a zero lifetime: a 304 that renews it keeps its lifetime (one
    /// without a lifetime of its own would otherwise leave it stale, revalidated on every GET).
    ///
    /// Its time of creation is as far before `distantPast` as its lifetime is long (the longest for the manager's
    /// default), so even a lifetime of `Int.max` seconds, which an app may give a reference it means to keep, ends
    /// before any clock's now.
    var markedStale: CacheReference {
        CacheReference(
            identifier: identifier,
            data: data,
            hash: hash,
            maxAge: maxAge,
            timeOfCreation: Date.distantPast.addingTimeInterval(-TimeInterval(max(maxAge ?? .max, 0))),
            initialAge: nil,
            variedFields: variedFields
        )
    }
}
