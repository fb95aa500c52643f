import Foundation
import Strata
import StrataFile
import StrataNetwork
import StrataStorage
internal import StrataSupport

/// A ready ``CacheProvider`` on a `FileDataSource`: it keeps each download with its `ETag`
/// and `Last-Modified` in the store's entry metadata and asks the server with `If-None-Match` and
/// `If-Modified-Since`, so unchanged files come back as `304 Not Modified`.
///
/// ```swift
/// let store = try FileDataSource(configuration: .init(identifier: "assets", maxSize: 200 << 20, countLimit: 5_000))
/// let provider = try FileCacheProvider(store: store)
/// let service = DownloadService(url: assetURL, cacheProvider: provider, cacheKey: "123")
/// let file = try await service.downloadAsync(progress: nil).result
/// ```
///
/// The store's limits, lifetime and least-recently-used eviction apply to the downloads: a download larger
/// than the store's `maxSize` fails the download with ``Strata/StrataError/Code/tooLarge``, and an evicted
/// or expired file is a miss.
///
/// A download whose headers forbid storing it (`Cache-Control: no-store`, `Vary: *`: RFC 9111, section 3, by
/// StrataNetwork's `HTTPFreshness`) is not stored: the download's own file is handed back (the caller's, as it
/// was; `DownloadService` leaves it to its caller), and the store's older entry for its key is removed, so that it
/// is never served in the new one's place. A part of a file (`206 Partial Content`) never reaches the provider:
/// `DownloadService` hands it back unstored, and sends a request for a range without the provider's headers.
///
/// ## Files handed out
///
/// A download enters the store by `FileDataSource/move(fileAt:forKey:options:)`: renamed, its
/// bytes not copied. A store's entry file, though, is the data followed by the store's metadata, so it is
/// not the plain file a ``CacheProvider`` must return, and the store's own file cannot be handed out. The
/// provider therefore hands out a *checkout*: a plain copy of the entry in ``checkoutFolder``, one file per
/// key (replaced atomically), made once per version of the entry — when a download is stored (copied from the
/// download, opened without following a link, into a new file of the held checkout folder, and handed out only when
/// it holds the bytes the store took: the same size and content hash) or, when its checkout is missing or out of
/// date, copied from the entry through a small buffer (whatever the store's `maximumReadSize`), checked as a read
/// checks it.
/// Later lookups of the same version hand the same file out again: they mark the entry as just used
/// (`FileDataSource/markUsed(forKey:)`) without reading its data, so repeated calls neither copy nor pile up files. A
/// version is its bytes (size and content hash): a `304` that renews the entry hands out the same checkout. Checkouts
/// of entries the store no longer holds are deleted when a download is stored, and when a lookup misses. Treat a
/// returned URL as read-only: open it soon, or copy it (a checkout changed in size or replaced by something other than
/// a file is written again from the store).
///
/// The provider deletes only what it made: regular files named as its checkouts (32 hex digits and
/// `.strata-checkout`) or as its staged copies (`.strata-checkout-staged-…`). Anything else in the checkout
/// folder — the user's files, subfolders, links — is never touched, and no link is followed; a folder found at a
/// checkout's name is renamed aside (`<name>.set-aside-<hex>`), never deleted, and the checkout written. A download that is
/// not a regular file (a link, a folder) is refused before anything is copied.
///
/// ## The checkout folder
///
/// The provider holds the checkout folder open and makes every file in it relative to that descriptor, and it
/// claims the folder as a store claims its own (the lock file `.strata-lock` in it): while it lives, a second
/// provider on the same folder, in this process or another, is refused with
/// ``Strata/StrataError/Code/alreadyInUse``. A URL is handed out only while ``checkoutFolder``'s path still leads
/// to the folder held (same device and inode): once it was moved away or replaced, by a link say, lookups miss and
/// ``cachedItem(key:)`` and ``store(objectAt:key:headers:)`` fail with ``Strata/StrataError/Code/io``.
public final class FileCacheProvider: CacheProvider {
    /// The store that keeps the downloads and their HTTP metadata.
    public let store: FileDataSource

    /// Whether downloads ask the store before the server; ``CachePolicy/alwaysFetchWithCustomHeader`` by
    /// default, since the provider's purpose is revalidation with ETags.
    public let cachePolicy: CachePolicy

    /// The folder of the plain files the provider hands out.
    public let checkoutFolder: URL

    /// The checkout folder, held open: every checkout is created, renamed and removed relative to it.
    let folder: StoreFolder

    /// The provider's claim on the checkout folder, given up when the provider goes.
    private let ownership: StoreOwnership

    /// The bytes of an entry: its size and content hash. Not its stored date, which a `304`'s renewal moves without
    /// changing a byte: a checkout stays current across renewals.
    private struct Version: Hashable {
        var size: Int
        var contentHash: UInt64
    }

    /// A checkout: the version of the entry it holds and the stamp of the file written for it. A checkout whose file
    /// no longer has that stamp was replaced or changed in place (a link, a folder, an edit) and is written again
    /// before it is handed out.
    private struct Checkout: Hashable {
        var version: Version
        var file: FileStamp
    }

    /// Checkout file name → what it holds; also the lock that serialises checkouts.
    private let checkouts = Locked<[String: Checkout]>([:])

    /// The locks that serialise ``store(objectAt:key:headers:)`` and the removals of one key, one per stripe of
    /// keys: the move into the store and the checkout of what it moved happen under the key's, so two stores of one
    /// key never interleave, while stores of keys of other stripes (hashing and copying whole downloads) run side by
    /// side. The store's reports wait until the lock is released (``whileStoring(_:_:)``), so the store's
    /// `diagnostics` may call the provider, even to store.
    private let storing = KeyLocks(stripes: 16)

    /// Creates a provider on a store.
    ///
    /// - Parameters:
    ///   - store: The store for the downloads.
    ///   - cachePolicy: Whether to ask the store before the server.
    ///   - checkoutFolder: The folder of the files handed out; by default a sibling of the store's folder
    ///     named `<identifier>.checkout`.
    /// - Throws: ``Strata/StrataError/Code/alreadyInUse`` when another provider, in this process or another,
    ///   holds the checkout folder, or it is the store's own folder, ``Strata/StrataError/Code/io``
    ///   when the checkout folder cannot be created, or a link is in its place.
    public init(
        store: FileDataSource,
        cachePolicy: CachePolicy = .alwaysFetchWithCustomHeader,
        checkoutFolder: URL? = nil
    ) throws {
        let folder =
            checkoutFolder
            ?? store.folderURL.deletingLastPathComponent()
            .appendingPathComponent(store.folderURL.lastPathComponent + ".checkout", isDirectory: true)
        let opened: StoreFolder
        do {
            opened = try StoreFolder.open(folder.path, create: true)
        } catch {
            throw error.strataError("Opening the checkout folder")
        }
        self.folder = opened
        self.ownership = try StoreOwnership.claim(
            opened,
            mode: .exclusive,
            owner: "the FileCacheProvider of \(store.folderURL.path)"
        )
        self.store = store
        self.cachePolicy = cachePolicy
        self.checkoutFolder = folder
        checkouts.withLock { pruneCheckouts(&$0, removingStaged: true) }
    }

    /// Returns a plain file with the data cached under `key`, or `nil` when the store has none (or the checkout
    /// folder's path no longer leads to the folder the provider holds).
    ///
    /// - Parameter key: The download's cache key.
    public func find(key: String) -> URL? {
        try? checkout(key)
    }

    /// Returns a plain file with the data cached under `key`, after a `304 Not Modified`.
    ///
    /// - Parameter key: The download's cache key.
    /// - Throws: ``Strata/StrataError/Code/notFound`` when the store no longer holds it (evicted, expired or
    ///   damaged), ``Strata/StrataError/Code/io`` when the checkout cannot be written or the checkout folder's
    ///   path no longer leads to the folder the provider holds.
    public func cachedItem(key: String) throws -> URL {
        guard let url = try checkout(key) else {
            throw StrataError.notFound(
                "The cache holds no file for \(StrataError.quoted(key: key)) to answer 304 Not Modified"
            )
        }
        return url
    }

    /// Moves a finished download into the store with its `ETag` and `Last-Modified` (header names compared
    /// case-insensitively) and returns its checkout. A download whose headers forbid storing it (`no-store`,
    /// `Vary: *`) is not stored: `file` itself is returned, still the caller's, and the store's older entry for `key`
    /// and its checkout are removed.
    ///
    /// - Parameters:
    ///   - file: The downloaded file, a regular file (not a link to one); the store takes it over.
    ///   - key: The download's cache key.
    ///   - headers: The response headers.
    /// - Returns: The plain file handed out for `key`, holding the download: there when the call returns, even when
    ///   the store no longer holds the entry by then (a store whose entries expire at once, an eviction, a removal
    ///   meanwhile). Such a checkout is deleted by a later store or lookup, as any of a key the store no longer holds.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when `file` is a link, a folder or anything but a
    ///   regular file, ``Strata/StrataError/Code/tooLarge`` when the file exceeds the store's size limit,
    ///   ``Strata/StrataError/Code/io`` when a file operation fails or the checkout folder's path no longer leads to
    ///   the folder the provider holds; nothing is stored then, and nothing is left in the checkout folder. (Should
    ///   the path change while the download is being stored, or the checkout fail to take its name — a folder there
    ///   is set aside first — it is stored and the call fails all the same.) Also
    ///   ``Strata/StrataError/Code/io`` when `file` changed between the provider's copy and the store's move and the
    ///   store no longer holds what it took: no file holds those bytes.
    public func store(objectAt file: URL, key: String, headers: [String: String]) throws -> URL {
        try store(objectAt: file, key: key, headers: headers, answering: nil)
    }

    /// ``store(objectAt:key:headers:)`` for a download whose request is known (as it was sent): a response that varies
    /// by request fields then answers, without asking, a later request that sends the same values in them
    /// (``Reuse``).
    func store(objectAt file: URL, key: String, headers: [String: String], answering request: HTTPRequest?) throws
        -> URL
    {
        let now = store.configuration.clock.now()
        let response = HTTPResponse(status: 200, headers: HTTPHeaders(headers))
        let freshness = HTTPFreshness(response: response, requestTime: now, responseTime: now)
        guard freshness.isStorable else {
            try forget(key)
            return file
        }
        let validators = ConditionalHeaders.storable(
            eTag: Self.header("ETag", in: headers),
            lastModified: Self.header("Last-Modified", in: headers)
        )
        let options = FileDataSource.EntryOptions(
            eTag: validators.eTag,
            lastModified: validators.lastModified,
            attributes: Reuse(freshness, response: response, request: request).attributes
        )
        let name = Self.checkoutName(key)
        try checkFolderPath()
        let staged = try stage(file)
        // The move and the checkout under one lock: two stores of one key that interleaved recorded the second
        // version's stamp against the first one's bytes, which then passed for current. A checkout made between
        // the move and the rename (by `find`) is of the version moved, which the rename hands out again.
        let stagedIsStored = try whileStoring(key) {
            do {
                try store.move(fileAt: file, forKey: key, options: options)
            } catch {
                removeOwnFile(staged)
                // A newer version the store refused (larger than it may hold): the older one must not be served in
                // its place either.
                if (error as? StrataError)?.code == .tooLarge {
                    _ = try? store.removeValue(forKey: key)
                    removeCheckout(name)
                }
                throw error
            }
            let moved = store.info(forKey: key)
            // Checked before the lock every lookup takes: it reads the whole copy.
            let holdsMoved = moved.map { stagedCopy(staged, holds: $0) } ?? true
            return try checkouts.withLock { checkouts in
                if !holdsMoved {
                    removeOwnFile(staged)
                    pruneCheckouts(&checkouts)
                    return false
                }
                do throws(POSIXCallError) {
                    try setAsideFolder(at: name)
                    try folder.rename(staged, to: name)
                } catch {
                    removeOwnFile(staged)
                    throw error.strataError("Handing out the checkout \(name)")
                }
                checkouts[name] = checkout(name, holding: moved)
                // The checkout handed out now stays, though the entry is gone already (expired at once, evicted,
                // removed): a later prune removes it.
                pruneCheckouts(&checkouts, keeping: name)
                return true
            }
        }
        guard stagedIsStored else {
            // The download changed between its copy and its move: the checkout is made from what the store holds.
            guard let url = try checkout(key) else {
                throw StrataError(
                    .io,
                    "The download of \(StrataError.quoted(key: key)) changed while it was stored, and the store "
                        + "no longer holds what it took: nothing is left to hand out"
                )
            }
            return url
        }
        return try handOut(name)
    }

    /// Removes the store's entry for `key` and its checkout: a newer version of it must not be stored, and the
    /// older one must not be served in its place.
    ///
    /// - Parameter info: When given, only the version it describes goes: an entry stored or renewed since stays,
    ///   with its checkout (the removal is `removeValue(forKey:ifStill:)`).
    private func forget(_ key: String, ifStill info: FileEntryInfo? = nil) throws {
        let name = Self.checkoutName(key)
        try whileStoring(key) {
            let removed =
                if let info { try store.removeValue(forKey: key, ifStill: info) } else {
                    try store.removeValue(forKey: key)
                }
            // Another version's checkout: it stays. (An entry gone already leaves its checkout to the next prune.)
            guard removed || info == nil else { return }
            removeCheckout(name)
        }
    }

    /// Runs `body` under the lock of `key`'s stripe of ``storing``, with the store's reports held back until the lock
    /// is released: a diagnostics closure called under it that stored into the provider (a key of the same stripe)
    /// waited for the lock for ever.
    private func whileStoring<Result>(_ key: String, _ body: () throws -> Result) throws -> Result {
        try store.deferringReports {
            try storing.withLock(key, body)
        }
    }

    /// Forgets and removes the checkout `name`.
    private func removeCheckout(_ name: String) {
        checkouts.withLock { checkouts in
            checkouts[name] = nil
            removeOwnFile(name)
        }
    }

    /// `If-None-Match` with the stored `ETag` and `If-Modified-Since` with the stored `Last-Modified`, when
    /// the store holds an entry for `cacheKey`; no headers otherwise.
    ///
    /// A validator that cannot be sent back — an `ETag` that is not an entity tag, a value with a control
    /// character, which a request refuses — is left out (as `ConditionalHeaders` leaves it out), so a server's
    /// garbage never fails the later downloads of the key.
    ///
    /// - Parameter cacheKey: The download's cache key.
    public func headerValues(for cacheKey: String) -> [String: String] {
        guard let info = store.info(forKey: cacheKey) else { return [:] }
        return Self.headerValues(of: info)
    }

    /// The headers ``headerValues(for:)`` returns for the entry `info` describes.
    ///
    /// An entry whose response varied on request fields (``Reuse/isVariant``) is asked about by its `ETag` alone:
    /// a `Last-Modified` date is often the same for every variant (a row's update time), so a 304 to
    /// `If-Modified-Since` could be about another variant than the one stored (RFC 9111, section 4.1), and without an
    /// `ETag` nothing is sent: the server's full answer replaces the entry.
    private static func headerValues(of info: FileEntryInfo) -> [String: String] {
        let lastModified = Reuse(attributes: info.attributes).isVariant ? nil : info.lastModified
        return ConditionalHeaders(eTag: info.eTag, lastModified: lastModified).headers.dictionary
    }

    /// Renews the entry under `key` after a `304 Not Modified` without rewriting its file: received now, with
    /// the stored `ETag` and `Last-Modified` (the 304's when its `ETag` matches the stored one; only those that can be
    /// sent back are kept), through the store's `renewMetadata(_:attributes:ifContentHash:forKey:)`. The entry keeps
    /// the store's own expiry, which is when it is evicted: an HTTP expiry there would drop a stale entry before it
    /// could be revalidated.
    ///
    /// A 304 whose `ETag` names another version than the stored one is not about the stored entry (RFC 9111,
    /// section 4.3.4): it renews and removes nothing, and ``cachedItem(key:)`` answers with the entry as it is. A
    /// download reaches this when another download of the key stored a newer version after the request was sent
    /// (`HTTPClient` itself asks again when a 304 names another version than the request did), and the newer
    /// version is the one to keep.
    /// A 304 whose fields forbid keeping the entry (its `Cache-Control` says `no-store`: they replace the stored ones,
    /// by `HTTPFreshness.keepsRenewedResponse(sendsCacheControl:)`, as for `DownloadService`) renews nothing: the entry
    /// and its checkout are removed, as for a full answer with `no-store`, and ``cachedItem(key:)`` then throws
    /// ``Strata/StrataError/Code/notFound``. Both land only on the version looked at: one stored meanwhile is
    /// neither renewed nor removed.
    ///
    /// - Parameters:
    ///   - key: The download's cache key.
    ///   - response: The 304.
    /// - Throws: ``Strata/StrataError/Code/io`` when the entry that must not be kept cannot be removed.
    public func renewItem(key: String, notModified response: HTTPResponse) async throws {
        try renew(key, notModified: response, sentWith: nil)
    }

    /// Renews (or removes) the entry under `key` as ``renewItem(key:notModified:)`` does, when it is still the
    /// version the request was sent about: the one ``headerValues(for:)`` returns `headers` for. Another version
    /// stored before or during the call is neither renewed nor removed.
    ///
    /// - Parameters:
    ///   - key: The download's cache key.
    ///   - response: The 304.
    ///   - headers: The headers the request was sent with.
    /// - Throws: ``Strata/StrataError/Code/io`` when the entry that must not be kept cannot be removed.
    public func renewItem(
        key: String,
        notModified response: HTTPResponse,
        sentWith headers: [String: String]
    ) async throws {
        try renew(key, notModified: response, sentWith: headers)
    }

    /// Renews or removes the entry under `key` after the 304 `response`; when `sent` is given, only the version
    /// whose headers it holds.
    private func renew(_ key: String, notModified response: HTTPResponse, sentWith sent: [String: String]?) throws {
        guard let info = store.info(forKey: key) else { return }
        if let sent, Self.headerValues(of: info) != sent { return }
        if let stored = info.eTag, let answered = response.eTag, !ConditionalHeaders.weakMatch(stored, answered) {
            return
        }
        let now = store.configuration.clock.now()
        let freshness = HTTPFreshness(response: response, requestTime: now, responseTime: now)
        guard freshness.keepsRenewedResponse(sendsCacheControl: response.headers["Cache-Control"] != nil) else {
            try forget(key, ifStill: info)
            return
        }
        let renewed = ConditionalHeaders(eTag: info.eTag, lastModified: info.lastModified).renewed(by: response)
        let validators = ConditionalHeaders.storable(eTag: renewed.eTag, lastModified: renewed.lastModified)
        let metadata = EntryMetadata(
            storedAt: now,
            expiresAt: info.expiresAt,
            eTag: validators.eTag,
            lastModified: validators.lastModified
        )
        // A 304 that sends `Cache-Control` replaces the stored directives (section 4.3.4); one that does not keeps them.
        let attributes =
            response.headers["Cache-Control"] == nil
            ? info.attributes
            : Reuse(attributes: info.attributes).renewed(by: freshness, response: response).attributes
        try store.renewMetadata(metadata, attributes: attributes, ifContentHash: info.contentHash, forKey: key)
    }

    /// Whether the entry under `key` must be revalidated before it answers `request` (as it would be sent) without
    /// asking (``Reuse``): what ``DownloadService`` asks before it answers from ``find(key:)``.
    func mustRevalidate(key: String, for request: HTTPRequest) -> Bool {
        Reuse(attributes: store.info(forKey: key)?.attributes).mustRevalidate(for: request)
    }

    // MARK: - Checkouts

    /// Returns the checkout of `key`, marking the entry as just used; `nil` when the store has no entry for it.
    private func checkout(_ key: String) throws -> URL? {
        guard let name = try refreshCheckout(key) else { return nil }
        return try handOut(name)
    }

    /// Makes the checkout of `key` current, marking the entry as just used: its name, or `nil` when the store has
    /// no entry for `key`.
    ///
    /// A checkout this provider made from the entry's current version is handed out again as it is: the entry
    /// is touched, its data not read. Otherwise the entry is copied (which checks it) into a new staged file, through
    /// a small buffer whatever its size, and renamed over the checkout — under the lock of the checkouts, and only
    /// while the store still holds the version copied: a store of the key that landed during the copy has handed out
    /// its own checkout, which is kept, and the copy is made again (up to ``readAttempts`` times; a lookup outrun by
    /// every one of them misses).
    private func refreshCheckout(_ key: String) throws -> String? {
        let name = Self.checkoutName(key)
        if let info = store.markUsed(forKey: key) {
            let version = Self.version(info)
            let current = checkouts.withLock { checkouts in isCurrent(checkouts[name], name, version: version) }
            if current { return name }
        }
        for _ in 0..<Self.readAttempts {
            let staged = store.info(forKey: key) == nil ? nil : try stageCopy(of: key)
            // `nil`: the store changed during the copy, which is made again; `.some(nil)`: the store has no entry.
            let outcome = try checkouts.withLock { checkouts -> String?? in
                guard let info = store.info(forKey: key) else {
                    staged.map { removeOwnFile($0.name) }
                    checkouts[name] = nil
                    removeOwnFile(name)
                    return .some(nil)
                }
                let version = Self.version(info)
                guard !isCurrent(checkouts[name], name, version: version), let staged,
                    Self.version(staged.info) == version
                else {
                    staged.map { removeOwnFile($0.name) }
                    return isCurrent(checkouts[name], name, version: version) ? name : nil
                }
                do throws(POSIXCallError) {
                    try setAsideFolder(at: name)
                    try folder.rename(staged.name, to: name)
                } catch {
                    removeOwnFile(staged.name)
                    throw error.strataError("Writing the checkout \(name)")
                }
                checkouts[name] = checkout(name, holding: info)
                return name
            }
            if let outcome { return outcome }
        }
        return nil
    }

    /// Copies the store's entry for `key` into a new staged file of the checkout folder (created exclusively,
    /// never through a link): its name and the version copied, or `nil` (nothing left behind) when the store has no
    /// readable entry for `key` now.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when the staged file cannot be created or written (a full disk).
    private func stageCopy(of key: String) throws -> (name: String, info: FileEntryInfo)? {
        let (descriptor, name): (Int32, String)
        do {
            (descriptor, name) = try folder.createTemporary(prefix: Self.stagedPrefix, mode: Self.checkoutMode)
        } catch {
            throw error.strataError("Staging the checkout of \(StrataError.quoted(key: key))")
        }
        let copied: FileEntryInfo?
        do {
            copied = try store.copyValue(forKey: key, to: descriptor)
        } catch {
            _ = close(descriptor)
            removeOwnFile(name)
            throw StrataError(.io, "Writing the checkout of \(StrataError.quoted(key: key))", underlying: error)
        }
        _ = close(descriptor)
        guard let copied else {
            removeOwnFile(name)
            return nil
        }
        return (name, copied)
    }

    /// How many times a lookup reads an entry that stores keep replacing under it before it misses.
    private static let readAttempts = 3

    /// Whether `checkout` holds `version` and its file `name` is still the one written for it.
    private func isCurrent(_ checkout: Checkout?, _ name: String, version: Version) -> Bool {
        guard let checkout, checkout.version == version else { return false }
        return stamp(of: name) == checkout.file
    }

    /// The checkout just written as `name` for the entry `info` describes; `nil` (written again at the next
    /// lookup) when either is gone.
    private func checkout(_ name: String, holding info: FileEntryInfo?) -> Checkout? {
        guard let info, let file = stamp(of: name) else { return nil }
        return Checkout(version: Self.version(info), file: file)
    }

    /// The stamp of `name` when it is a regular file (a link is not followed); `nil` otherwise.
    private func stamp(of name: String) -> FileStamp? {
        try? folder.stamp(ofFile: name)
    }

    /// Deletes checkouts of keys the store no longer holds, but `kept` (the one a store is handing out); staged files
    /// of stores in progress stay unless `removingStaged` (when the provider opens, as a crash may have left some).
    /// Only regular files with the provider's own names are deleted.
    private func pruneCheckouts(
        _ checkouts: inout [String: Checkout],
        keeping kept: String? = nil,
        removingStaged: Bool = false
    ) {
        let live = Set(store.sortedKeys().map(Self.checkoutName))
        try? folder.forEachItem { name, kind in
            let stale = kind == .file && Self.isCheckoutName(name) && !live.contains(name) && name != kept
            guard stale || (kind == .file && removingStaged && Self.isStagedName(name)) else { return }
            _ = try? folder.remove(name)
            checkouts[name] = nil
        }
    }

    /// Deletes `name` when it is a regular file (a link is never followed nor deleted, a folder never deleted);
    /// the caller has checked the name is the provider's.
    private func removeOwnFile(_ name: String) {
        guard (try? folder.kind(of: name)) == .file else { return }
        _ = try? folder.remove(name)
    }

    // MARK: - Names

    /// The name of the checkout of `key`: the collision-resistant hash (32 hex digits) of its canonical (NFC) form,
    /// `StoreKey.canonical(_:)`, and ``checkoutSuffix``. Canonically equivalent keys are one entry of the store, so
    /// they have one checkout.
    ///
    /// Collision-resistant because a checkout is handed out as a plain file that nothing checks against its key
    /// (the rule of `StrataSupport.Hashing`). Checkouts named by the FNV-1a hash of earlier versions match
    /// ``isCheckoutName(_:)`` and belong to no live key, so opening the provider removes them.
    static func checkoutName(_ key: String) -> String {
        Hashing.collisionResistantName(of: StoreKey.canonical(key)) + checkoutSuffix
    }

    /// The extension of every checkout.
    static let checkoutSuffix = ".strata-checkout"

    /// The prefix of staged copies (a checkout before its rename).
    static let stagedPrefix = ".strata-checkout-staged-"

    /// The permissions of staged copies, and so of checkouts: readable by their owner only, as a download is.
    static let checkoutMode: mode_t = 0o600

    /// Whether `name` is a checkout's: 32 lowercase hex digits and ``checkoutSuffix``.
    static func isCheckoutName(_ name: String) -> Bool {
        guard name.hasSuffix(checkoutSuffix) else { return false }
        let digits = name.utf8.dropLast(checkoutSuffix.utf8.count)
        return digits.count == 32 && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether `name` is a staged copy's: ``stagedPrefix`` and 1 to 16 lowercase hex digits.
    static func isStagedName(_ name: String) -> Bool {
        guard name.hasPrefix(stagedPrefix) else { return false }
        let random = name.utf8.dropFirst(stagedPrefix.utf8.count)
        return (1...16).contains(random.count)
            && random.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func version(_ info: FileEntryInfo) -> Version {
        Version(size: info.size, contentHash: info.contentHash)
    }

    /// The value of a header, its name compared case-insensitively.
    static func header(_ name: String, in headers: [String: String]) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
