import Foundation

extension HTTPFreshness {
    /// Until when a stored response is fresh once a `304` renewed it: the stored response's fields updated by the
    /// 304's, freshness computed from the merged set (RFC 9111, section 4.3.4). Every cache renews by this rule.
    ///
    /// A cache keeps a stored response's rules rather than its fields (its lifetime, and whether it is `no-cache`),
    /// so the merge is made on them:
    ///
    /// - A 304 that sends `Cache-Control` replaces the stored one: the 304's own freshness, or the stored rules
    ///   when it gives no lifetime.
    /// - Without one, the stored `Cache-Control` stands: a stored `no-cache` keeps the response stale (revalidated
    ///   before every use), whatever `Expires` the 304 sends; a stored lifetime, which may be a `max-age` that
    ///   outranks the 304's `Expires`, bounds the 304's: the earlier of the two. (The stored lifetime's source is not
    ///   kept: when it was the stored `Expires`, the 304's later one is taken for no later than the stored lifetime
    ///   again, a revalidation too early, never a response served past its freshness.)
    /// - The 304's own age (`Age`, `Date`) is not taken off the stored lifetime: the caches keep the lifetime that
    ///   remained when they stored the response, not the response's own, so taking each 304's age off would shrink
    ///   it at every renewal for good (a server's clock 30 s behind would leave a `max-age=300` entry stale on
    ///   arrival after ten). A 304 relayed by a shared cache with a large `Age` and no `Cache-Control` renews for
    ///   the stored lifetime.
    ///
    /// - Parameters:
    ///   - notModified: When the 304's own freshness ends (its ``expiresAt``); `nil` when it gives no lifetime.
    ///   - sendsCacheControl: Whether the 304 sends `Cache-Control`.
    ///   - stored: When the stored rules end the renewed response's freshness: the time of the 304 plus the stored
    ///     lifetime; `nil` when the stored response had no lifetime.
    ///   - storedRequiresRevalidation: Whether the stored response is `no-cache`.
    ///   - now: The time of the 304.
    /// - Returns: When the renewed response stops being fresh; `nil` when neither gives a lifetime.
    package static func renewedFreshUntil(
        notModified: Date?,
        sendsCacheControl: Bool,
        stored: Date?,
        storedRequiresRevalidation: Bool,
        now: Date
    ) -> Date? {
        if sendsCacheControl { return notModified ?? stored }
        if storedRequiresRevalidation { return now }
        guard let notModified, let stored else { return notModified ?? stored }
        return min(notModified, stored)
    }

    /// When this `304`'s own freshness ends, as ``renewedFreshUntil(notModified:sendsCacheControl:stored:storedRequiresRevalidation:now:)``
    /// weighs it: `end` (the 304's ``expiresAt`` as the cache computes it), but none for a heuristic lifetime of a 304
    /// without `Cache-Control`. A heuristic is for a response that has no explicit expiration time (RFC 9111,
    /// section 4.2.2), and the stored response's `max-age` stands when the 304 sends no `Cache-Control`: a 304 with a
    /// recent `Last-Modified` would otherwise cut an hour's `max-age` to minutes, for good (each renewal keeps the
    /// shorter lifetime).
    ///
    /// - Parameters:
    ///   - end: When the 304's freshness ends by its own fields.
    ///   - sendsCacheControl: Whether the 304 sends `Cache-Control`.
    package func renewing(_ end: Date?, sendsCacheControl: Bool) -> Date? {
        isHeuristic && !sendsCacheControl ? nil : end
    }

    /// Whether a stored response renewed by this `304` may stay stored: the 304's `Cache-Control` replaces the
    /// stored one (RFC 9111, section 4.3.4), so its `no-store` (or, in a shared cache, its lack of `public` for a
    /// request with `Authorization`) removes the stored copy, as a full answer's would; without one the stored
    /// directives decide, and the copy stays.
    ///
    /// - Parameter sendsCacheControl: Whether the 304 sends `Cache-Control`.
    package func keepsRenewedResponse(sendsCacheControl: Bool) -> Bool {
        !sendsCacheControl || isStorable
    }
}
