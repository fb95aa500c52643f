import Foundation

extension HTTPClient {
    /// Whether a `304 Not Modified` is about another version than the one the request named: its request's
    /// `If-None-Match` is one entity tag, the 304 carries an `ETag`, and the two do not match weakly.
    ///
    /// Such a 304 updates no stored response (RFC 9111, section 4.3.4): renewing the stored copy with it would label
    /// the old bytes with the new version's tag, and every later revalidation would be answered 304. The
    /// conditional calls ask once more without conditions instead, and return the full response.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - request: The request it answered.
    static func isAboutAnotherVersion(_ response: HTTPResponse, of request: HTTPRequest) -> Bool {
        guard response.status == 304, let named = request.headers["If-None-Match"],
            ConditionalHeaders.isValidEntityTag(named), let answered = response.eTag
        else { return false }
        return !ConditionalHeaders.weakMatch(named, answered)
    }
}

extension HTTPRequest {
    /// A copy without the headers of a conditional request (`If-None-Match`, `If-Modified-Since`): what is sent
    /// again after a 304 about another version.
    func withoutConditions() -> HTTPRequest {
        var copy = self
        copy.headers["If-None-Match"] = nil
        copy.headers["If-Modified-Since"] = nil
        return copy
    }
}
