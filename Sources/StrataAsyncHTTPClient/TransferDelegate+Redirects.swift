#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import NIOHTTP1
    import StrataNetwork

    extension TransferDelegate {
        /// The statuses AsyncHTTPClient follows when their `Location` names an `http` or `https` URL, 304 and 305
        /// among them.
        private static let clientRedirectStatuses: Set<Int> = [301, 302, 303, 304, 305, 307, 308]

        /// Whether AsyncHTTPClient is about to follow a response as a redirect that the transports' rule
        /// (``StrataNetwork/RedirectRule``) does not follow.
        ///
        /// - Parameters:
        ///   - head: The response's head.
        ///   - url: The URL that answered.
        static func isUnfollowedRedirect(_ head: HTTPResponseHead, from url: URL) -> Bool {
            let status = Int(head.status.code)
            guard clientRedirectStatuses.contains(status),
                let target = location(head.headers.first(name: "Location"), from: url),
                let scheme = target.scheme?.lowercased(), ["http", "https"].contains(scheme)
            else { return false }
            return !RedirectRule.follows(status: status, to: target, from: url)
        }

        /// Where a response that answered `url` redirects the request, when the transport follows it
        /// (``StrataNetwork/RedirectRule``); `nil` when the response is the answer.
        ///
        /// - Parameters:
        ///   - status: The response's status.
        ///   - headers: The response's headers.
        ///   - url: The URL that answered.
        static func redirectTarget(status: Int, headers: StrataNetwork.HTTPHeaders, from url: URL) -> URL? {
            guard RedirectRule.followedStatuses.contains(status),
                let target = location(headers.values(for: "Location").first, from: url),
                RedirectRule.follows(status: status, to: target, from: url)
            else { return nil }
            return target
        }

        /// A `Location` field's URL, resolved against the URL that answered.
        private static func location(_ field: String?, from url: URL) -> URL? {
            field.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
        }

        /// The fields of a response head, in order.
        static func headers(of head: HTTPResponseHead) -> StrataNetwork.HTTPHeaders {
            StrataNetwork.HTTPHeaders(
                head.headers.map { StrataNetwork.HTTPHeaders.Field(name: $0.name, value: $0.value) }
            )
        }
    }
#endif
