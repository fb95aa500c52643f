import struct Foundation.Date

/// What a store knows about an entry besides its value: when it was stored, until when it is fresh, when it
/// expires, and the validators a server gave it.
///
/// Metadata travels with a value copied between tiers (``PutDataSource/putEntry(_:in:)``), so a copy never
/// lives longer than its original, and a cache can renew it without rewriting the value
/// (``PutDataSource/renewMetadata(_:in:)``), as after an HTTP 304.
///
/// ## Freshness and expiry
///
/// Two dates bound an entry's life, and they mean different things:
///
/// - ``freshUntil`` is when the value stops being *fresh* by its source's rules (an HTTP response's freshness
///   lifetime, for example). Past it the store still serves the entry: a validator such as
///   ``FreshnessValidator`` may refuse it, and a ``CacheRepository`` then revalidates it with its
///   ``eTag`` or ``lastModified`` and renews it, or serves it stale when its operation allows.
/// - ``expiresAt`` is the *hard* expiry: past it the store no longer serves the entry at all (a miss), so it
///   can neither be served stale nor revalidated.
///
/// A source that knows only freshness (as `NetworkGetDataSource` does) reports ``freshUntil`` and leaves
/// ``expiresAt`` and ``storedAt`` to the cache that stores the copy: its own time to live and its own clock.
public struct EntryMetadata: Sendable, Hashable {
    /// When the value was written to its source, if the source records it; a store given `nil` stamps the
    /// entry with its own clock.
    public var storedAt: Date?

    /// When the store stops serving the entry (a hard expiry: a miss past it), if it expires; a store given
    /// `nil` applies its own time to live.
    ///
    /// The distant past says the value must not be stored at all (an HTTP response with `no-store`): a
    /// ``CacheRepository`` returns it without writing it into its cache (``isStorable``).
    public var expiresAt: Date?

    /// When the value stops being fresh by its source's rules, if the source says; past it a validator may
    /// refuse it and a repository revalidates it, but the store keeps serving it (unlike ``expiresAt``).
    public var freshUntil: Date?

    /// The entity tag a server gave the value, sent back as `If-None-Match` to revalidate it.
    public var eTag: String?

    /// The `Last-Modified` date a server gave the value, sent back as `If-Modified-Since`.
    public var lastModified: String?

    /// The groups the entry belongs to, such as `user:42` or `team:7`: `delete(TagQuery("team:7"))` on a store
    /// that keeps tags removes every entry tagged `team:7` (group invalidation, ``TagQuery``).
    ///
    /// The memory store keeps them (and keeps them when the entry's metadata is renewed without tags); a store that
    /// does not keep tags drops them and refuses a ``TagQuery``.
    public var tags: Set<String>

    /// Whether the value must never be served stale: past ``freshUntil`` it is revalidated with main or not served
    /// at all, whatever the operation allows (HTTP's `must-revalidate` and `no-cache`, RFC 9111, section 4.2.4).
    ///
    /// A ``CacheRepository`` then serves no stale value in its place: not on main's failure
    /// (``CacheSyncOperation/fallback``), not while refreshing it in the background
    /// (``CacheSyncOperation/staleWhileRevalidate``), not for ``CacheOperation/ignoringValidation``. Strata's stores
    /// keep it; a store that cannot keeps such an entry only until its ``freshUntil`` (a miss past it), so that a copy
    /// never outlives the rule.
    public var forbidsServingStale: Bool

    /// The stale-serving directives of a renewal that gave its own (an HTTP `304` with `Cache-Control`), which
    /// replace the stored ones; `nil` when it gave none and the stored directives stand (RFC 9111, section 4.3.4).
    package var renewalDirectives: RenewalDirectives?

    /// The age the value had when it was received from its source (an HTTP response's corrected initial age,
    /// RFC 9111, section 4.2.3); `nil` when the source does not say.
    package var initialAge: Duration?

    /// The version a renewal is for: the validators of the stored entry a conditional read was sent with, which its
    /// *not modified* confirmed (``confirming(_:)``); `nil` for metadata that renews whatever entry a store holds.
    /// A store renews only an entry that still carries them (``renews(entryWithETag:lastModified:)``).
    package var confirmedVersion: ConfirmedVersion?

    /// Creates metadata.
    ///
    /// - Parameters:
    ///   - storedAt: When the value was stored; `nil` for the storing store's clock.
    ///   - expiresAt: When the entry stops being served; `nil` for the storing store's time to live.
    ///   - freshUntil: When the value stops being fresh; `nil` when the source does not say.
    ///   - eTag: The server's entity tag.
    ///   - lastModified: The server's `Last-Modified` value.
    ///   - tags: The groups the entry belongs to.
    ///   - forbidsServingStale: Whether the value must never be served stale.
    public init(
        storedAt: Date? = nil,
        expiresAt: Date? = nil,
        freshUntil: Date? = nil,
        eTag: String? = nil,
        lastModified: String? = nil,
        tags: Set<String> = [],
        forbidsServingStale: Bool = false
    ) {
        self.storedAt = storedAt
        self.expiresAt = expiresAt
        self.freshUntil = freshUntil
        self.eTag = eTag
        self.lastModified = lastModified
        self.tags = tags
        self.forbidsServingStale = forbidsServingStale
    }

    /// Whether the metadata carries a validator (an entity tag or a `Last-Modified` date) that main can use to
    /// answer *not modified*.
    public var hasValidators: Bool { eTag != nil || lastModified != nil }

    /// Whether the value may be stored: `false` when its ``expiresAt`` is the distant past, as a source says of a
    /// value no cache may keep (an HTTP response with `no-store`).
    public var isStorable: Bool { expiresAt != .distantPast }
}

/// The stale-serving directives a renewal carries to the cache it renews (an HTTP `304`'s `Cache-Control`).
package struct RenewalDirectives: Sendable, Hashable {
    /// `must-revalidate` or `no-cache` (or, in a shared cache, `proxy-revalidate` or `s-maxage`).
    package var forbidsServingStale: Bool
    /// `no-cache`: revalidated before every reuse.
    package var requiresRevalidation: Bool
    /// `stale-while-revalidate`, if given.
    package var staleWhileRevalidate: Duration?
    /// `stale-if-error`, if given.
    package var staleIfError: Duration?

    /// Creates directives.
    package init(
        forbidsServingStale: Bool,
        requiresRevalidation: Bool,
        staleWhileRevalidate: Duration?,
        staleIfError: Duration?
    ) {
        self.forbidsServingStale = forbidsServingStale
        self.requiresRevalidation = requiresRevalidation
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
    }
}
