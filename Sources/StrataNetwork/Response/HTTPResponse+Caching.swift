import Foundation

extension HTTPResponse {
    /// The `ETag` header as sent, weak prefix and quotes included (`W/"abc"`).
    public var eTag: String? { headers["ETag"] }

    /// The `Last-Modified` header as a date.
    public var lastModified: Date? { headers["Last-Modified"].flatMap(HTTPDate.parse) }

    /// The parsed `Cache-Control` header; all directives off when there is none.
    public var cacheControl: CacheControl { CacheControl(parsing: headers["Cache-Control"] ?? "") }

    /// The `Expires` header as a date.
    ///
    /// An invalid value (such as `0`) means "already expired" (RFC 9111, section 5.3): it is returned as
    /// the distant past.
    public var expires: Date? {
        guard let value = headers["Expires"] else { return nil }
        return HTTPDate.parse(value) ?? .distantPast
    }

    /// The `Date` header: when the origin generated the response.
    public var date: Date? { headers["Date"].flatMap(HTTPDate.parse) }

    /// The `Age` header: how long the response has been in caches upstream; a value too large to represent
    /// is 2³¹ seconds (RFC 9111, section 1.2.2), one that is not a number `nil`.
    public var age: Duration? {
        headers["Age"].flatMap { DeltaSeconds.parse($0.trimmingOptionalWhitespace()) }.map { .seconds($0) }
    }

    /// How long the response is fresh from when it was generated, from its explicit headers
    /// (RFC 9111, section 4.2.1): `s-maxage` (for a shared cache), then `max-age`, then
    /// `Expires` − `Date`.
    ///
    /// - Parameters:
    ///   - sharedCache: Whether `s-maxage` applies; the brief's order (s-maxage first) is the default.
    ///   - responseDate: The date to use when the response has no `Date` header (the time it was
    ///     received).
    /// - Returns: The lifetime (zero or more), or `nil` when the response gives none (a cache may then
    ///   use a heuristic or a default).
    public func freshnessLifetime(sharedCache: Bool = true, responseDate: Date? = nil) -> Duration? {
        freshnessLifetime(given: cacheControl, sharedCache: sharedCache, responseDate: responseDate)
    }

    /// How long the response is fresh, as ``freshnessLifetime(sharedCache:responseDate:)``, with its
    /// `Cache-Control` already parsed (a caller that has ``cacheControl`` in hand parses it once).
    ///
    /// - Parameters:
    ///   - control: The response's ``cacheControl``.
    ///   - sharedCache: Whether `s-maxage` applies.
    ///   - responseDate: The date to use when the response has no `Date` header.
    /// - Returns: The lifetime (zero or more), or `nil` when the response gives none.
    public func freshnessLifetime(given control: CacheControl, sharedCache: Bool = true, responseDate: Date? = nil)
        -> Duration?
    {
        if sharedCache, let sharedMaxAge = control.sharedMaxAge { return sharedMaxAge }
        if let maxAge = control.maxAge { return maxAge }
        guard let expires else { return nil }
        guard let base = date ?? responseDate else { return expires == .distantPast ? .zero : nil }
        return DeltaSeconds.duration(expires.timeIntervalSince(base))
    }

    /// The wait the server asked for in `Retry-After`, seconds or an HTTP date.
    ///
    /// - Parameter now: The current time, for the date form.
    public func retryAfter(now: Date) -> Duration? {
        headers["Retry-After"].flatMap { RetryAfter.parse($0, now: now) }
    }
}
