import Foundation
import Strata

// The one rule for a URL's user and password (`https://ann:secret@host/…`): every place that asks whether a URL
// carries credentials — to redact it, to send them, to keep an answer to them out of a shared cache — reads them here,
// from the parts as written (percent-encoded), never from `URL.user`, which reads a user that does not decode as UTF-8
// (`a%FFb`) as none while libcurl sends it.
extension URL {
    /// Whether the URL carries a user or a password, an empty one included (`https://@host/…` goes as `Basic Og==`):
    /// read as written, so that one that does not decode as UTF-8 counts too.
    package var carriesCredentials: Bool {
        let url = absoluteURL
        return url.user(percentEncoded: true) != nil || url.password(percentEncoded: true) != nil
    }

    /// The user and password the URL carries, percent-decoded (RFC 3986, section 3.2.1) as a transport sends them,
    /// the password empty when the URL has none; `nil` when it carries neither (``carriesCredentials``).
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when either is not UTF-8 once decoded (Basic credentials
    ///   are UTF-8, RFC 7617): Foundation reads such a user as none while libcurl sends its bytes, so what a transport
    ///   sends and what a cache counts would differ.
    package func credentials() throws -> (user: String, password: String)? {
        guard carriesCredentials else { return nil }
        let url = absoluteURL
        guard let user = (url.user(percentEncoded: true) ?? "").removingPercentEncoding,
            let password = (url.password(percentEncoded: true) ?? "").removingPercentEncoding
        else {
            throw StrataError(
                .invalidArgument,
                "The URL \(describedForErrors) carries a user or password that is not UTF-8 once percent-decoded: "
                    + "percent-encode it from UTF-8 text"
            )
        }
        return (user, password)
    }

    /// The `Authorization` value that sends the user and password the URL carries (``credentials()``) as Basic
    /// credentials (RFC 7617), as URLSession sends them; `nil` when the URL carries none.
    ///
    /// - Throws: As ``credentials()``.
    package func basicAuthorization() throws -> String? {
        try credentials().map { "Basic " + Data("\($0.user):\($0.password)".utf8).base64EncodedString() }
    }

    /// The URL without the user and password it may carry; `nil` when it cannot be rebuilt without them.
    package var withoutCredentials: URL? {
        guard carriesCredentials else { return self }
        var components = URLComponents(url: self, resolvingAgainstBaseURL: true)
        components?.percentEncodedUser = nil
        components?.percentEncodedPassword = nil
        return components?.url
    }
}
