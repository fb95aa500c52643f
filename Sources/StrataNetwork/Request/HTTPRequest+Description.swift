import Foundation

extension HTTPRequest {
    /// How errors name the request: its method and URL, or its path when it has no URL — never the user and password
    /// a URL may carry (`https://user:secret@host/…` is named `https://host/…`).
    ///
    /// - Parameter url: The URL the request goes to; `nil` to name it by its path.
    func describedForErrors(sentTo url: URL?) -> String {
        "\(method) \(url.map(Self.withoutCredentials) ?? path)"
    }

    /// `url` as text, without its user and password.
    private static func withoutCredentials(_ url: URL) -> String {
        guard url.user != nil || url.password != nil else { return url.absoluteString }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.user = nil
        components?.password = nil
        return components?.string ?? "\(url.scheme ?? "http")://\(url.host ?? "")\(url.path(percentEncoded: true))"
    }
}
