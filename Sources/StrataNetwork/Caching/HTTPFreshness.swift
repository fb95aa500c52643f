import Foundation
import Strata

/// How long a response may be served from a cache without asking the server: RFC 9111's freshness, computed
/// once for every cache of Strata (``StrataNetwork/NetworkGetDataSource``'s entries, StrataCache's `BlobCache`,
/// `CachedFetcher` and `FileCacheProvider`).
///
/// ```swift
/// let sent = Date()
/// let response = try await client.send(request)
/// let freshness = HTTPFreshness(response: response, requestTime: sent, responseTime: Date())
/// if freshness.isStorable { store(response.body, expiresAt: freshness.expiresAt) }
/// if freshness.isFresh(at: clock.now()) { serveWithoutAsking() }
/// ```
///
/// - The **freshness lifetime** (section 4.2.1) is `s-maxage` (only for a shared cache, see
///   ``Policy/isShared``), else `max-age`, else `Expires` − `Date` (the time of receipt when there is no
///   `Date`; an invalid `Expires`, such as `0`, is already expired). Without any of them the lifetime is
///   `nil` — the caller's default applies — unless ``Policy/usesHeuristics`` allows 10% of `Date` −
///   `Last-Modified` (section 4.2.2), off by default.
/// - The **age** (section 4.2.3) is the corrected initial age — the larger of `responseTime` − `Date` and
///   `Age` + (`responseTime` − `requestTime`) — plus the time since receipt.
/// - A response is **storable** (section 3) unless it says `no-store` (or `private`, to a shared cache) or
///   `Vary: *` (which no later request matches, section 4.1) — to a shared cache, any `Vary` but `Accept-Encoding`,
///   or an answer to credentials (`Authorization`, a user in the URL) that is not `public`, `s-maxage` or
///   `must-revalidate` (section 3.5) — and only when its status is one a cache may store
///   without being told (200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501: RFC 9110, section 15.1) or it
///   gives an explicit lifetime, `public`, or (to a private cache) `private`: a `202 Accepted` with no
///   `Cache-Control` is not stored; a `206 Partial Content` never is. A `304` is judged by its headers alone, as an
///   update of a stored response.
/// - `no-cache` makes it stale from the start (stored, but
///   revalidated before every reuse); `must-revalidate` (and `no-cache`, and for a shared cache
///   `proxy-revalidate` or `s-maxage`) forbids serving it stale; `stale-while-revalidate` and `stale-if-error` (RFC 5861)
///   give the windows past freshness in which it may be served while revalidating or when the server fails.
///
/// Strata's caches live in one app, for one user: they are **private caches** by default, which ignore
/// `s-maxage` (and the `proxy-revalidate` it implies) and may store `private` responses. A gateway that serves many users
/// sets ``Policy/isShared``. Every value saturates: a lifetime or an age never exceeds 2³¹ seconds, whatever
/// the headers say, and no header can make the arithmetic overflow or trap.
public struct HTTPFreshness: Sendable, Hashable {
    /// What kind of cache computes the freshness.
    public struct Policy: Sendable, Hashable {
        /// Whether the cache is shared between users (RFC 9111, section 1): `s-maxage` and `proxy-revalidate`
        /// apply, and `private` responses are not stored. `false` by default: Strata's caches are private.
        public var isShared: Bool

        /// Whether a response without an explicit lifetime gets a heuristic one: 10% of the time since its
        /// `Last-Modified` (section 4.2.2). Off by default: such a response gets the cache's own default.
        public var usesHeuristics: Bool

        /// A private cache without heuristics: the default.
        public static let privateCache = Policy()

        /// A shared cache without heuristics.
        public static let sharedCache = Policy(isShared: true)

        /// Creates a policy.
        ///
        /// - Parameters:
        ///   - isShared: Whether the cache is shared between users.
        ///   - usesHeuristics: Whether to give a heuristic lifetime to responses without one.
        public init(isShared: Bool = false, usesHeuristics: Bool = false) {
            self.isShared = isShared
            self.usesHeuristics = usesHeuristics
        }
    }

    /// The share of `Date` − `Last-Modified` a heuristic lifetime is: 10%.
    public static let heuristicFraction = 0.1

    /// Whether the response may be stored at all (RFC 9111, section 3): `false` for `no-store` (and, in a shared
    /// cache, `private`), for `Vary: *`, for `206 Partial Content` (Strata's caches keep whole responses), and for a
    /// status a cache may not store without being told (such as `201` or `202`) when the response gives no explicit
    /// lifetime, `public` or, to a private cache, `private`.
    public var isStorable: Bool

    /// The statuses a cache may store without explicit freshness (RFC 9110, section 15.1), less `206 Partial
    /// Content`: Strata's caches keep whole responses, and do not combine ranges.
    public static let cacheableByDefault: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// How long the response is fresh from its generation; `nil` when the headers give no lifetime (and no
    /// heuristic applies): the cache's own default then applies.
    public var lifetime: Duration?

    /// Whether ``lifetime`` is a heuristic one (``Policy/usesHeuristics``).
    public var isHeuristic: Bool

    /// The response's age when it was received: the corrected initial age of RFC 9111, section 4.2.3.
    public var initialAge: Duration

    /// When the response was received.
    public var responseTime: Date

    /// `no-cache`: the response may be stored but must be revalidated before every reuse; it is stale from
    /// the start.
    public var requiresRevalidation: Bool

    /// Whether a stale copy must never be served without revalidating it: `must-revalidate`, `no-cache`, and
    /// in a shared cache `proxy-revalidate` or `s-maxage` (which implies it, section 5.2.2.10).
    public var forbidsServingStale: Bool

    /// `stale-while-revalidate` (RFC 5861): how long past ``expiresAt`` the response may be served while it is
    /// revalidated in the background. The directive's window less what a response already stale when it was received
    /// (an `Age` past its lifetime) had spent of it, never below zero.
    public var staleWhileRevalidate: Duration?

    /// `stale-if-error` (RFC 5861): how long past ``expiresAt`` the response may be served when revalidating it
    /// fails (a transport error or a 5xx). The directive's window less what a response already stale when it was
    /// received had spent of it, never below zero.
    public var staleIfError: Duration?

    /// Computes the freshness of a response.
    ///
    /// - Parameters:
    ///   - response: The response (a 2xx, or a 304 whose headers update a stored one).
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received.
    ///   - policy: What kind of cache computes it; a private cache without heuristics by default.
    ///   - request: The request it answers, when the caller built it: its `Cache-Control: no-store` makes the
    ///     response not storable (section 5.2.1.5), and so does its `Authorization` (or a user or password in its
    ///     URL, one that does not decode as UTF-8 included) for a shared cache, unless the response says `public`,
    ///     `s-maxage` or `must-revalidate` (section 3.5). For a shared cache, a response whose `Vary` names any
    ///     request field but `Accept-Encoding` is not storable, with or without the request (section 4.1: a cache
    ///     keyed by the URL cannot match the fields' values).
    public init(
        response: HTTPResponse,
        requestTime: Date,
        responseTime: Date,
        policy: Policy = .privateCache,
        request: HTTPRequest? = nil
    ) {
        let control = response.cacheControl
        self.init(
            headers: response.headers,
            control: control,
            requestTime: requestTime,
            responseTime: responseTime,
            policy: policy
        )
        if let request, request.headers.cacheControl.noStore { isStorable = false }
        // A shared cache serves many users: an answer to one user's credentials is stored only when the response
        // allows it, with `public`, `s-maxage` or `must-revalidate` (section 3.5).
        // Credentials in the URL (`https://ann:secret@…`) go as `Authorization: Basic` on the wire.
        if let request, policy.isShared,
            request.headers["Authorization"] != nil || (try? request.url())?.carriesCredentials == true,
            !(control.isPublic || control.sharedMaxAge != nil || control.mustRevalidate)
        {
            isStorable = false
        }

        // Part of a body, which a cache keyed by the URL alone would serve as the whole (section 3.3).
        if response.status == 206 { isStorable = false }
        // A response reached through a redirect is its target's, not the requested URI's (section 4: a stored
        // response is reused only for its own target URI; a 302, 303 or 307 is asked again each time): stored under the
        // requested URI, it is revalidated before each reuse, so the redirect is followed again.
        if let request, let answered = response.url, let asked = try? request.url(),
            !Self.isSameTarget(answered, asked)
        {
            requiresRevalidation = true
        }
        // A 304 updates a stored response, whose status stands (section 4.3.4).
        if isStorable, response.status != 304, !Self.cacheableByDefault.contains(response.status) {
            let explicitLifetime = lifetime != nil && !isHeuristic
            isStorable = explicitLifetime || control.isPublic || (!policy.isShared && control.isPrivate)
        }
    }

    /// Computes the freshness from headers whose `Cache-Control` is already parsed.
    ///
    /// - Parameters:
    ///   - headers: The response headers.
    ///   - control: Their `Cache-Control`.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received.
    ///   - policy: What kind of cache computes it.
    public init(
        headers: HTTPHeaders,
        control: CacheControl,
        requestTime: Date,
        responseTime: Date,
        policy: Policy = .privateCache
    ) {
        let date = headers["Date"].flatMap(HTTPDate.parse)
        isStorable = !control.noStore && !(policy.isShared && control.isPrivate) && !Self.variesOnEverything(headers)
        // A response that varies on the request's fields answers only requests that send the same values in them
        // (section 4.1), which a cache keyed by the URL cannot tell: a shared cache would serve one user's answer
        // (`Vary: Cookie`, `Vary: Accept-Language`) to every other. `Accept-Encoding` is the transport's own, the same
        // on every request it sends.
        if policy.isShared, Self.variesOnRequestFields(headers) { isStorable = false }
        requiresRevalidation = control.noCache
        // In a shared cache, `s-maxage` implies `proxy-revalidate` (section 5.2.2.10).
        forbidsServingStale =
            control.mustRevalidate || control.noCache
            || (policy.isShared && (control.proxyRevalidate || control.sharedMaxAge != nil))
        staleWhileRevalidate = control.staleWhileRevalidate
        staleIfError = control.staleIfError
        self.responseTime = responseTime
        let explicit = Self.explicitLifetime(
            headers: headers,
            control: control,
            date: date,
            responseTime: responseTime,
            policy: policy
        )
        if let explicit {
            lifetime = explicit
            isHeuristic = false
        } else if policy.usesHeuristics, let lastModified = headers["Last-Modified"].flatMap(HTTPDate.parse) {
            let since = (date ?? responseTime).timeIntervalSince(lastModified)
            lifetime = DeltaSeconds.duration(since * Self.heuristicFraction)
            isHeuristic = true
        } else {
            lifetime = nil
            isHeuristic = false
        }
        // Section 4.2.3, every term saturated at 2³¹ seconds.
        let ageValue = headers["Age"].flatMap(DeltaSeconds.age) ?? 0
        let apparentAge = date.map { DeltaSeconds.duration(responseTime.timeIntervalSince($0)) } ?? .zero
        let responseDelay = DeltaSeconds.duration(responseTime.timeIntervalSince(requestTime))
        let correctedAgeValue = Self.saturated(.seconds(ageValue) + responseDelay)
        initialAge = max(apparentAge, correctedAgeValue)
        // RFC 5861 bounds how stale a response may be served, not how long after it arrived: one already stale when it
        // came (its age past its lifetime, as a CDN relays it) has spent that much of its windows.
        if let lifetime, initialAge > lifetime {
            let staleOnArrival = initialAge - lifetime
            staleWhileRevalidate = staleWhileRevalidate.map { max($0 - staleOnArrival, .zero) }
            staleIfError = staleIfError.map { max($0 - staleOnArrival, .zero) }
        }
    }

    /// `s-maxage` (shared caches), `max-age`, or `Expires` − `Date`; `nil` when none is there.
    private static func explicitLifetime(
        headers: HTTPHeaders,
        control: CacheControl,
        date: Date?,
        responseTime: Date,
        policy: Policy
    ) -> Duration? {
        if policy.isShared, let sharedMaxAge = control.sharedMaxAge { return sharedMaxAge }
        if let maxAge = control.maxAge { return maxAge }
        guard let expiresValue = headers["Expires"] else { return nil }
        // An invalid `Expires` (such as `0`) means already expired (section 5.3).
        guard let expires = HTTPDate.parse(expiresValue) else { return .zero }
        return DeltaSeconds.duration(expires.timeIntervalSince(date ?? responseTime))
    }

    /// Whether `Vary` lists `*`: the response varies on more than the request's fields, so no later request
    /// matches it (RFC 9111, section 4.1).
    private static func variesOnEverything(_ headers: HTTPHeaders) -> Bool {
        headers.values(for: "Vary").contains { line in
            HTTPList.plainMembers(of: line, omittingEmpty: true).contains("*")
        }
    }

    /// Whether `Vary` names a request field other than `Accept-Encoding` (or `*`): the response then answers only
    /// requests that send the same values in those fields (RFC 9111, section 4.1).
    package static func variesOnRequestFields(_ headers: HTTPHeaders) -> Bool {
        headers.values(for: "Vary").contains { line in
            HTTPList.plainMembers(of: line, omittingEmpty: true).contains { $0.lowercased() != "accept-encoding" }
        }
    }

    /// The most a lifetime or an age can be: 2³¹ seconds.
    static let maximum = Duration.seconds(DeltaSeconds.maximum)

    private static func saturated(_ duration: Duration) -> Duration {
        min(max(duration, .zero), maximum)
    }

    /// How long the response stays fresh after it was received: ``lifetime`` less ``initialAge``, never below
    /// zero; zero for `no-cache` (with or without a lifetime); `nil` when there is no lifetime.
    public var remainingLifetime: Duration? {
        if requiresRevalidation { return .zero }
        guard let lifetime else { return nil }
        return Self.saturated(lifetime - initialAge)
    }

    /// When the response stops being fresh: ``responseTime`` + ``remainingLifetime``; `nil` when there is no
    /// lifetime (and it is not `no-cache`).
    public var expiresAt: Date? {
        remainingLifetime.map { responseTime.addingTimeInterval($0.timeInterval) }
    }

    /// The response's age at `now` (`current_age`): ``initialAge`` plus the time since it was received.
    ///
    /// - Parameter now: The current time.
    public func age(at now: Date) -> Duration {
        Self.saturated(initialAge + DeltaSeconds.duration(now.timeIntervalSince(responseTime)))
    }

    /// Whether the response may be served without revalidation at `now`: its age is below its lifetime, and it
    /// is not `no-cache`. A response without a lifetime is not fresh (the caller's default decides).
    ///
    /// - Parameter now: The current time.
    public func isFresh(at now: Date) -> Bool {
        guard let lifetime, !requiresRevalidation else { return false }
        return age(at: now) < lifetime
    }

    /// Until when a stale copy may be served while it is revalidated (`stale-while-revalidate`); `nil` when
    /// the response gives no window, has no lifetime, or forbids serving stale.
    public var staleWhileRevalidateUntil: Date? {
        staleWindowEnd(staleWhileRevalidate)
    }

    /// Until when a stale copy may be served when revalidating fails (`stale-if-error`); `nil` when the
    /// response gives no window, has no lifetime, or forbids serving stale.
    public var staleIfErrorUntil: Date? {
        staleWindowEnd(staleIfError)
    }

    /// Whether `error` is one after which `stale-if-error` lets a cache serve a stale response (RFC 5861, section
    /// 4): a transport failure (``Strata/StrataError/Code/network``), or a `500`, `502`, `503` or `504`. Not a
    /// client error, nor a 5xx that says the request itself cannot be served (`501`, `505`).
    ///
    /// - Parameter error: The error of the revalidation.
    public static func isOutage(_ error: StrataError) -> Bool {
        if error.code == .network { return true }
        guard error.code == .unexpectedResponse, let status = error.httpFailure?.status else { return false }
        return [500, 502, 503, 504].contains(status)
    }

    /// Whether two URLs name one target: the same scheme, host and port (either case, a default port or none), path
    /// (empty or `/` alike) and query, whatever their fragments.
    static func isSameTarget(_ first: URL, _ second: URL) -> Bool {
        // The common case, a response from the URL asked for, without parsing either.
        if first.absoluteString == second.absoluteString { return true }
        func target(_ url: URL) -> [String?]? {
            guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
            let scheme = parts.scheme?.lowercased()
            let port = parts.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
            let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
            return [
                scheme, parts.percentEncodedHost?.lowercased(), port.map(String.init), path, parts.percentEncodedQuery,
            ]
        }
        guard let first = target(first), let second = target(second) else {
            return first.absoluteString == second.absoluteString
        }
        return first == second
    }

    private func staleWindowEnd(_ window: Duration?) -> Date? {
        guard let window, !forbidsServingStale, let expiresAt else { return nil }
        return expiresAt.addingTimeInterval(window.timeInterval)
    }
}
