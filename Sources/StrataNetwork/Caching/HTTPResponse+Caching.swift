import Foundation

extension HTTPResponse {
    /// The `ETag` header as sent, weak prefix and quotes included (`W/"abc"`).
    public var eTag: String? { headers["ETag"] }

    /// The `Last-Modified` header as a date.
    public var lastModified: Date? { headers["Last-Modified"].flatMap(HTTPDate.parse) }

    /// The parsed `Cache-Control` header; all directives off when there is none.
    public var cacheControl: CacheControl { headers.cacheControl }

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
    /// is 2³¹ seconds (RFC 9111, section 1.2.2), one that is not a number `nil`, and of a list the first member
    /// counts (section 5.1).
    public var age: Duration? {
        headers["Age"].flatMap(DeltaSeconds.age).map { .seconds($0) }
    }

    /// How long the response is fresh from when it was generated, from its explicit headers: `s-maxage` (for a
    /// shared cache), then `max-age`, then `Expires` − `Date`: ``HTTPFreshness/lifetime``, for a caller that
    /// has no request and response times (a cache computes the whole ``HTTPFreshness``, age included).
    ///
    /// - Parameters:
    ///   - sharedCache: Whether `s-maxage` applies: only for a cache that serves many users (a gateway, a
    ///     proxy); `false` by default, as for ``HTTPFreshness/Policy/privateCache``, since an app's cache must
    ///     ignore it (RFC 9111, section 5.2.2.10).
    ///   - responseDate: The time the response was received, used when it has no `Date` header.
    /// - Returns: The lifetime, or `nil` when the response gives none.
    public func freshnessLifetime(sharedCache: Bool = false, responseDate: Date? = nil) -> Duration? {
        legacyLifetime(control: cacheControl, sharedCache: sharedCache, responseDate: responseDate)
    }

    /// How long the response is fresh, as ``freshnessLifetime(sharedCache:responseDate:)``, with its
    /// `Cache-Control` already parsed.
    ///
    /// - Parameters:
    ///   - control: The response's ``cacheControl``.
    ///   - sharedCache: Whether `s-maxage` applies.
    ///   - responseDate: The time the response was received, used when it has no `Date` header.
    /// - Returns: The lifetime, or `nil` when the response gives none.
    public func freshnessLifetime(given control: CacheControl, sharedCache: Bool = false, responseDate: Date? = nil)
        -> Duration?
    {
        legacyLifetime(control: control, sharedCache: sharedCache, responseDate: responseDate)
    }

    /// The old entry points' lifetime, through ``HTTPFreshness``: without a `Date` or a `responseDate`, an
    /// `Expires` date gives no lifetime (there is nothing to subtract it from).
    private func legacyLifetime(control: CacheControl, sharedCache: Bool, responseDate: Date?) -> Duration? {
        let explicit = control.maxAge != nil || (sharedCache && control.sharedMaxAge != nil)
        let received = date ?? responseDate
        if received == nil, !explicit, headers["Expires"] != nil { return expires == .distantPast ? .zero : nil }
        // `max-age` and `s-maxage` do not depend on the times; `Expires` is read against `received`.
        let time = received ?? Date(timeIntervalSince1970: 0)
        return HTTPFreshness(
            headers: headers,
            control: control,
            requestTime: time,
            responseTime: time,
            policy: HTTPFreshness.Policy(isShared: sharedCache)
        ).lifetime
    }

    /// The wait the server asked for in `Retry-After`, seconds or an HTTP date.
    ///
    /// A date is measured from the response's `Date` when it has a valid one, both read on the server's clock; from
    /// `now` otherwise. A local clock a few minutes off the server's then neither stretches the wait past a client's
    /// cap nor shrinks it to nothing.
    ///
    /// - Parameter now: The current time, for the date form without a `Date`.
    public func retryAfter(now: Date) -> Duration? {
        headers.retryAfter(now: now)
    }
}

extension HTTPHeaders {
    /// The parsed `Cache-Control` fields, a response's or a request's; all directives off when there is none.
    package var cacheControl: CacheControl { CacheControl(parsing: self["Cache-Control"] ?? "") }

    /// A response's `Retry-After`, as ``HTTPResponse/retryAfter(now:)`` reads it.
    package func retryAfter(now: Date) -> Duration? {
        guard let value = self["Retry-After"] else { return nil }
        return RetryAfter.parse(value, now: self["Date"].flatMap(HTTPDate.parse) ?? now)
    }
}
