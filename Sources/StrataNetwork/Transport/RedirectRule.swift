import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which redirects a transport follows, and what a request keeps when it follows one.
///
/// - Only to `http` and `https`, and never from `https` down to `http`: the request, its credentials and its
///   cookies would cross the network in the clear.
/// - Never to a URL whose user or password is not UTF-8 once percent-decoded (`http://a%FFb:pw@host/…`), whatever
///   its origin: the rule a request's own URL is refused by (``HTTPRequest/validate()``, ``URL/credentials()``), so a
///   server cannot have the transport send what the caller could not.
/// - To another origin (scheme, host or port), the request loses the credentials meant for the first one:
///   ``credentialFields`` and the user and password of its URL.
/// - A `HEAD` stays a `HEAD` (RFC 9110 §15.4.4 lets a 303 be followed with either a `GET` or a `HEAD`): a request for
///   the headers alone never turns into a download of the body.
/// - On Linux, a request with a body that a redirect would send again with its method (a 307 or 308; a 301 or 302 of
///   a `PUT`) is not followed: FoundationNetworking sends it again without its body, which would reach the target as
///   an empty write. The redirect is the answer. (Apple's URLSession sends the body again.)
/// - A request a redirect turns into a `GET` (a 303; a 301 or 302 of a `POST`) loses the fields that were about the
///   write: its preconditions (`If-Match` would make the `GET` of the changed resource a `412`), its
///   `Idempotency-Key` and its content fields.
///
/// AsyncHTTPClient applies the same origin rule itself; ``URLSessionTransport`` applies this one, where
/// FoundationNetworking would resend every field, and the URL's password, to any host a server names.
package enum RedirectRule {
    /// The fields a request loses on its way to another origin.
    package static let credentialFields = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// Whether `name` is one of ``credentialFields``, in any case.
    package static func isCredentialField(_ name: String) -> Bool {
        credentialFields.contains { $0.equalsIgnoringASCIICase(name) }
    }

    /// The request to send after a redirect from `origin` to `redirected`'s URL, or `nil` when it is not followed
    /// (the redirect's own response is the answer).
    ///
    /// - Parameters:
    ///   - redirected: The request the transport would send next.
    ///   - origin: The URL that answered with the redirect.
    ///   - status: The redirect's status: only ``followedStatuses`` are followed.
    ///   - method: The method of the request that was redirected: a `HEAD` is followed with a `HEAD`
    ///     (FoundationNetworking follows a 303 with a `GET` whatever the method).
    ///   - hadBody: Whether the request that was redirected had a body.
    package static func follow(
        _ redirected: URLRequest,
        from origin: URL?,
        status: Int,
        method: String? = nil,
        hadBody: Bool = false
    ) -> URLRequest? {
        guard let target = redirected.url, follows(status: status, to: target, from: origin) else { return nil }
        var redirected = redirected
        if method == "HEAD" { redirected.httpMethod = "HEAD" }
        if let method, method != "HEAD" {
            let next = redirected.httpMethod?.uppercased() ?? "GET"
            if next == method.uppercased() {
                #if canImport(FoundationNetworking)
                    // Apple's URLSession sends the body again; FoundationNetworking does not.
                    guard !hadBody || method.uppercased() == "GET" else { return nil }
                #endif
            } else {
                for field in writeFields { redirected.setValue(nil, forHTTPHeaderField: field) }
            }
        }
        guard let origin, isSameOrigin(origin, target) else { return strippingCredentials(redirected) }
        return redirected
    }

    /// The request to send after a redirect, for a transport that follows redirects itself: `request`, sent to
    /// `origin`, sent again to `target`; `nil` when the redirect is not followed (it is then the answer).
    ///
    /// A 303, and a 301 or 302 of a `POST`, turn the request into a `GET` without its body and without
    /// ``writeFields`` (a `HEAD` stays a `HEAD`); any other redirect sends the request again as it was, body included.
    /// Credentials the origin's URL carried go on as the request's `Authorization` to the same origin, and to
    /// another origin the request loses every one of them.
    ///
    /// - Parameters:
    ///   - request: The request that was redirected.
    ///   - origin: The URL it was sent to.
    ///   - status: The redirect's status: only ``followedStatuses`` are followed.
    ///   - target: The URL the redirect's `Location` names, resolved against `origin`.
    /// - Returns: The next request, and whether it was turned into a `GET`.
    package static func follow(
        _ request: HTTPRequest,
        sentTo origin: URL,
        status: Int,
        to target: URL
    ) -> (request: HTTPRequest, turnedIntoGet: Bool)? {
        guard follows(status: status, to: target, from: origin) else { return nil }
        var next = HTTPRequest(request.method, url: target)
        next.headers = request.headers
        next.body = request.body
        next.timeout = request.timeout
        next.totalTimeout = request.totalTimeout
        let turnsIntoGet =
            request.method != .head && (status == 303 || (request.method == .post && [301, 302].contains(status)))
        if turnsIntoGet {
            next.method = .get
            next.body = nil
            for field in writeFields { next.headers[field] = nil }
        }
        guard isSameOrigin(origin, target) else {
            for field in credentialFields { next.headers[field] = nil }
            if let stripped = target.withoutCredentials { next.baseURL = stripped }
            return (next, turnsIntoGet)
        }
        // The origin's own credentials, which its URL carried, are still meant for it.
        if next.headers["Authorization"] == nil, !target.carriesCredentials,
            let credentials = try? origin.basicAuthorization()
        {
            next.headers["Authorization"] = credentials
        }
        return (next, turnsIntoGet)
    }

    /// The fields of a write that a `GET` it turns into loses: its preconditions, its idempotency key and its
    /// content fields.
    static let writeFields = [
        "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range", "Idempotency-Key",
        "Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location", "Content-Digest",
        "Repr-Digest", "Digest",
    ]

    /// The statuses a transport follows as redirects: 301, 302, 303, 307 and 308. A 304 answers a conditional
    /// request (its `Location`, if any, is no redirect) and 305 is deprecated: both are handed back as they are.
    package static let followedStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Whether a response with `status` that names `target` is followed when it answered `origin`.
    ///
    /// - Parameters:
    ///   - status: The response's status.
    ///   - target: The URL its `Location` names, resolved against `origin`.
    ///   - origin: The URL that answered.
    package static func follows(status: Int, to target: URL, from origin: URL?) -> Bool {
        followedStatuses.contains(status) && allows(target, from: origin)
    }

    /// Whether a redirect to `target` may be followed: only to `http` and `https`, never from `https` to `http`,
    /// and never to credentials that do not decode (``URL/credentials()``).
    private static func allows(_ target: URL, from origin: URL?) -> Bool {
        guard let scheme = target.scheme?.lowercased(), ["http", "https"].contains(scheme) else { return false }
        do { _ = try target.credentials() } catch { return false }
        return !(origin?.scheme?.lowercased() == "https" && scheme == "http")
    }

    /// Whether two URLs share scheme, host and port (RFC 6454), the default port of their scheme included.
    package static func isSameOrigin(_ first: URL, _ second: URL) -> Bool {
        func parts(_ url: URL) -> (String?, String?, Int?) {
            let scheme = url.scheme?.lowercased()
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
            return (scheme, url.host?.lowercased(), port)
        }
        return parts(first) == parts(second)
    }

    /// The request without ``credentialFields`` and without the user and password of its URL.
    private static func strippingCredentials(_ request: URLRequest) -> URLRequest {
        var request = request
        for field in credentialFields { request.setValue(nil, forHTTPHeaderField: field) }
        if let url = request.url, let stripped = url.withoutCredentials { request.url = stripped }
        return request
    }
}
