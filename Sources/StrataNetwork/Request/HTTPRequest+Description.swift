import Foundation

extension HTTPRequest {
    /// How errors name the request: its method and URL, or its path when it has no URL — never the user and password
    /// a URL may carry (`https://user:secret@host/…` is named `https://host/…`).
    ///
    /// - Parameter url: The URL the request goes to; `nil` to name it by its path.
    func describedForErrors(sentTo url: URL?) -> String {
        "\(method) \(url?.describedForErrors ?? path)"
    }
}

extension URL {
    /// How errors name the URL: as text, without the user and password it may carry (`https://user:secret@host/…`
    /// is named `https://host/…`; see ``carriesCredentials``), so that a message written to a log keeps no credentials.
    package var describedForErrors: String {
        guard carriesCredentials else { return absoluteString }
        return withoutCredentials?.absoluteString
            ?? "\(scheme ?? "http")://\(host ?? "")\(path(percentEncoded: true))"
    }

    /// The URL without its fragment, which is never sent: URLs that differ only in one name the same resource, and
    /// a cache keys them as one.
    package var withoutFragment: URL {
        guard fragment != nil, var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else {
            return self
        }
        components.fragment = nil
        return components.url ?? self
    }
}

extension String {
    /// How errors name a key that may be a URL (a `BlobCache`'s keys are): a URL without its user and password
    /// (``Foundation/URL/describedForErrors``), any other key as it is.
    package var describedForErrorsAsURL: String {
        URL(string: self)?.describedForErrors ?? self
    }
}
