import Foundation

extension HTTPClient {
    /// The time on the clock the client's transport reads deadlines on (``DeadlineClock``): the continuous clock's,
    /// but in a test that moves a Strata transport's clock on. A call that asks twice reads its one total deadline on
    /// it.
    package var deadlineNow: ContinuousClock.Instant { transport.clockForDeadlines.now }

    /// The deadlines of a call of `request` that may ask twice, starting now on ``deadlineNow``'s clock.
    ///
    /// - Parameter request: The request as the client sends it (``asSent(_:)``: the configuration's total deadline
    ///   counts).
    package func callDeadlines(of request: HTTPRequest) -> RequestDeadlines {
        RequestDeadlines(of: request, start: deadlineNow)
    }

    /// Whether a `304 Not Modified` is about another version than the one the request named: its request's
    /// `If-None-Match` is one entity tag, the 304 carries an `ETag`, and the two do not match weakly; or its request
    /// sent `If-Modified-Since` alone, and the 304 carries a strong `ETag` (a validator the stored response, which
    /// sent none, lacks) or a `Last-Modified` naming another date than the one sent (compared as HTTP dates when
    /// both parse).
    ///
    /// Such a 304 updates no stored response (RFC 9111, section 4.3.4): renewing the stored copy with it would label
    /// the old bytes with the new version's validators, and every later revalidation would be answered 304. The
    /// conditional calls ask once more without conditions instead, and return the full response.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - request: The request it answered.
    static func isAboutAnotherVersion(_ response: HTTPResponse, of request: HTTPRequest) -> Bool {
        guard response.status == 304 else { return false }
        if let named = request.headers["If-None-Match"] {
            guard ConditionalHeaders.isValidEntityTag(named), let answered = response.eTag else { return false }
            return !ConditionalHeaders.weakMatch(named, answered)
        }
        guard let since = request.headers["If-Modified-Since"] else { return false }
        if let answered = response.eTag, ConditionalHeaders.isStrongEntityTag(answered) { return true }
        guard let modified = response.headers["Last-Modified"] else { return false }
        guard let sentDate = HTTPDate.parse(since), let modifiedDate = HTTPDate.parse(modified) else {
            return since.trimmingCharacters(in: .whitespaces) != modified.trimmingCharacters(in: .whitespaces)
        }
        return sentDate != modifiedDate
    }
}

extension HTTPClient {
    /// Whether a 304 answers `request`, sent for a copy with `conditions`: when the caller gave no conditions (its
    /// request may carry validators in fields of its own), or when the request as sent asks for a 304
    /// (`If-None-Match`, `If-Modified-Since`). Conditions none of which could be sent (an entity tag that is not
    /// one) leave a plain request, and a 304 to it is about no stored copy.
    static func acceptsNotModified(_ request: HTTPRequest, given conditions: ConditionalHeaders) -> Bool {
        conditions.isEmpty || request.headers["If-None-Match"] != nil || request.headers["If-Modified-Since"] != nil
    }
}

extension HTTPRequest {

    /// A copy without the headers of a conditional request (`If-None-Match`, `If-Modified-Since`).
    func withoutConditions() -> HTTPRequest {
        var copy = self
        copy.headers["If-None-Match"] = nil
        copy.headers["If-Modified-Since"] = nil
        return copy
    }

    /// What is sent again after a 304 about another version: the request ``withoutConditions()``, with what remains
    /// of the first exchange's total deadline as its own (``sentAgain(within:now:)``), so that the call as a whole
    /// keeps to ``totalTimeout``.
    ///
    /// - Parameters:
    ///   - deadlines: The deadlines of the first exchange, taken as it started.
    ///   - now: The current instant, on the clock of `deadlines` (``deadlineNow``).
    /// - Throws: The total deadline's ``Strata/StrataError/Code/network`` error when nothing remains of it.
    func askedAgain(within deadlines: RequestDeadlines, now: ContinuousClock.Instant) throws -> HTTPRequest {
        try withoutConditions().sentAgain(within: deadlines, now: now)
    }

    /// This request as a second exchange of one call, with what remains of the first exchange's total deadline as
    /// its own: the one rule by which a call that asks twice (``askedAgain(within:now:)``, a `DownloadService` whose
    /// 304 found the cached copy gone) keeps to one ``totalTimeout``.
    ///
    /// - Parameters:
    ///   - deadlines: The deadlines of the first exchange, taken as it started (as the client sends it:
    ///     `client.callDeadlines(of: client.asSent(request))`, so that the configuration's total deadline counts).
    ///   - now: The current instant, on the clock of `deadlines` (``deadlineNow``).
    /// - Throws: The total deadline's ``Strata/StrataError/Code/network`` error when nothing remains of it.
    package func sentAgain(within deadlines: RequestDeadlines, now: ContinuousClock.Instant) throws
        -> HTTPRequest
    {
        let remaining = deadlines.end - now
        guard remaining > .zero else { throw deadlines.error(.total, request: HTTPClient.describe(self)) }
        var copy = self
        copy.totalTimeout = remaining
        return copy
    }
}
