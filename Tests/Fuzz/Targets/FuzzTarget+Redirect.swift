#if DEBUG
    import Foundation
    @testable import StrataNetwork

    extension FuzzTarget {
        /// The URLs a redirect's `Location` is resolved against: credentials in the URL, another port, a plain origin.
        private static let redirectOrigins = [
            "https://user:secret@example.com/a/b?q=1", "http://example.com:8080/x/", "https://example.com",
        ]
        .compactMap { URL(string: $0) }

        /// Reads the input's first line as a redirect's `Location`, resolved against each of
        /// ``redirectOrigins`` as a transport resolves it, and follows it with each status and method
        /// (`RedirectRule.follow(_:sentTo:status:to:)`): only a 301, 302, 303, 307 or 308 to `http` or `https` is
        /// followed, never from `https` to `http`; a request that goes to another origin carries no credential, in
        /// its fields or its URL; one turned into a `GET` has no body and none of the write's fields; the same
        /// origin gets the credentials its URL carried.
        static func redirect(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            let text = String(decoding: bytes, as: UTF8.self)
            let location = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            for origin in redirectOrigins {
                guard let target = URL(string: location, relativeTo: origin)?.absoluteURL else { continue }
                for status in [301, 302, 303, 304, 305, 307, 308] {
                    for method in [HTTPMethod.get, .post, .head] {
                        try follow(origin, to: target, status: status, method: method, input: bytes)
                    }
                }
            }
        }

        private static func follow(
            _ origin: URL,
            to target: URL,
            status: Int,
            method: HTTPMethod,
            input bytes: UnsafeRawBufferPointer
        ) throws(FuzzFailure) {
            var request = HTTPRequest(method, url: origin)
            request.headers["Cookie"] = "session=1"
            request.headers["If-Match"] = "\"v1\""
            if method == .post { request.body = Data("body".utf8) }
            guard let (next, turnedIntoGet) = RedirectRule.follow(request, sentTo: origin, status: status, to: target)
            else { return }
            let scheme = next.baseURL.scheme?.lowercased()
            try expect(RedirectRule.followedStatuses.contains(status), "a \(status) was followed", input: bytes)
            try expect(scheme == "http" || scheme == "https", "a redirect to \(target) was followed", input: bytes)
            try expect(
                origin.scheme != "https" || scheme == "https",
                "a redirect from https to \(target) was followed",
                input: bytes
            )
            if turnedIntoGet {
                try expect(
                    next.method == .get && next.body == nil && next.headers["If-Match"] == nil,
                    "a \(status) of a \(method) turned into a GET kept the write",
                    input: bytes
                )
            }
            if RedirectRule.isSameOrigin(origin, target) {
                guard next.headers["Authorization"] == nil, !target.carriesCredentials else { return }
                try expect(
                    (try? origin.basicAuthorization()) == nil,
                    "the credentials of \(origin) were lost on the way to \(target)",
                    input: bytes
                )
                return
            }
            for field in RedirectRule.credentialFields {
                try expect(next.headers[field] == nil, "\(field) went to \(target)", input: bytes)
            }
            try expect(
                !next.baseURL.carriesCredentials,
                "the credentials of \(target) went to another origin",
                input: bytes
            )
        }
    }
#endif
