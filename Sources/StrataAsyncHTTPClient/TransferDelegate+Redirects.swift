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
            guard clientRedirectStatuses.contains(status), let location = head.headers.first(name: "Location"),
                let target = URL(string: location, relativeTo: url)?.absoluteURL,
                let scheme = target.scheme?.lowercased(), ["http", "https"].contains(scheme)
            else { return false }
            return !RedirectRule.follows(status: status, to: target, from: url)
        }

        /// The fields of a response head, in order.
        static func headers(of head: HTTPResponseHead) -> StrataNetwork.HTTPHeaders {
            StrataNetwork.HTTPHeaders(
                head.headers.map { StrataNetwork.HTTPHeaders.Field(name: $0.name, value: $0.value) }
            )
        }
    }
#endif
