import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request's credentials reach the origin they were meant for and no other, on either transport: not after a
/// redirect, and not on another request as a cookie the transport kept.
struct TransportCredentialTests {
    /// A request to `first`'s `/start` carrying credentials in its fields and its URL, and a benign field.
    private func request(to first: LoopbackServer) throws -> HTTPRequest {
        var components = try #require(URLComponents(url: first.baseURL, resolvingAgainstBaseURL: false))
        components.user = "ann"
        components.password = "secret"
        var request = HTTPRequest(url: try #require(components.url).appendingPathComponent("start"))
        request.headers["Authorization"] = "Bearer token"
        request.headers["Cookie"] = "session=1"
        request.headers["X-Trace"] = "t-1"
        return request
    }

    /// A server whose `/start` redirects (302) to the `/landing` of another server, another origin (another port).
    private static func crossOriginRedirect() async throws -> (first: LoopbackServer, other: LoopbackServer) {
        let other = try await LoopbackServer.start([
            ("GET /landing", { _ in ServerReply(status: 200, body: Data("ok".utf8)) })
        ])
        let target = other.baseURL.appendingPathComponent("landing").absoluteString
        do {
            let first = try await LoopbackServer.start([
                ("GET /start", { _ in ServerReply(status: 302, headers: ["Location": target]) })
            ])
            return (first, other)
        } catch {
            await other.stop()
            throw error
        }
    }

    /// A URL's user and password are sent as Basic credentials (percent-decoded, as RFC 3986 writes them) when the
    /// request sets no `Authorization` of its own, on both transports: before, AsyncHTTPClient sent none, and a server
    /// that URLSession's requests could read answered it 401.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aURLsUserAndPasswordAreSentAsBasicCredentials(transport kind: TransportUnderTest) async throws {
        // Given a server, and a URL to it with a user and a password that needed percent-encoding
        let server = try await LoopbackServer.start([
            ("GET /start", { _ in ServerReply(status: 200, body: Data("ok".utf8)) })
        ])
        defer { Task { await server.stop() } }
        var components = try #require(URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false))
        components.user = "ann"
        components.password = "s@c:ret"
        let url = try #require(components.url).appendingPathComponent("start")

        // When a request is sent to it, and another that sets its own `Authorization`
        let client = makeClient(kind.make())
        _ = try await client.send(HTTPRequest(url: url))
        var own = HTTPRequest(url: url)
        own.headers["Authorization"] = "Bearer token"
        _ = try await client.send(own)

        // Then the first carried the URL's credentials, the second its own field alone
        let expected = "Basic " + Data("ann:s@c:ret".utf8).base64EncodedString()
        #expect(server.requests.map { $0.headers["authorization"] } == [expected, "Bearer token"])
    }

    /// The Basic credentials a URL's user and password make go to that URL's origin alone, on both transports.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aURLsCredentialsDoNotFollowARedirectToAnotherOrigin(transport kind: TransportUnderTest) async throws {
        // Given a server that redirects to another origin
        let (first, other) = try await Self.crossOriginRedirect()
        defer { Task { await first.stop() } }
        defer { Task { await other.stop() } }
        var components = try #require(URLComponents(url: first.baseURL, resolvingAgainstBaseURL: false))
        components.user = "ann"
        components.password = "secret"

        // When a request whose URL carries a user and a password follows it
        let request = HTTPRequest(url: try #require(components.url).appendingPathComponent("start"))
        let response = try await makeClient(kind.make()).send(request)

        // Then the first origin got the credentials, the other none
        #expect(response.status == 200)
        let expected = "Basic " + Data("ann:secret".utf8).base64EncodedString()
        #expect(first.requests.first?.headers["authorization"] == expected)
        #expect(other.requests.first?.headers["authorization"] == nil)
    }

    /// Before, URLSession (FoundationNetworking) resent every field, and the URL's password, to whatever host a
    /// server's `Location` named.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func credentialsDoNotFollowARedirectToAnotherOrigin(transport kind: TransportUnderTest) async throws {
        // Given a server that redirects to another origin (another port)
        let (first, other) = try await Self.crossOriginRedirect()
        defer { Task { await first.stop() } }
        defer { Task { await other.stop() } }

        // When a request with credentials follows it
        let response = try await makeClient(kind.make()).send(try request(to: first))

        // Then the other origin answers, and got the benign field but none of the credentials
        #expect(response.status == 200)
        let landed = try #require(other.requests.first)
        #expect(landed.headers["x-trace"] == "t-1")
        #expect(landed.headers["authorization"] == nil, "\(landed.headers)")
        #expect(landed.headers["cookie"] == nil, "\(landed.headers)")
    }

    /// Before, URLSession added a configuration's `httpAdditionalHeaders` to every request it sent, the redirected
    /// one included: an `Authorization` or `Cookie` set there reached whatever origin a server's `Location` named.
    @Test(.timeLimit(.minutes(1)))
    func aConfigurationsCredentialsDoNotFollowARedirectToAnotherOrigin() async throws {
        // Given a server that redirects to another origin, and a transport whose configuration carries credentials
        let (first, other) = try await Self.crossOriginRedirect()
        defer { Task { await first.stop() } }
        defer { Task { await other.stop() } }
        let configuration = URLSessionTransport.defaultConfiguration
        configuration.httpAdditionalHeaders = [
            "Authorization": "Bearer secret", "cookie": "session=1", "Proxy-Authorization": "Basic cHJveHk=",
            "X-Trace": "t-1",
        ]
        let transport = URLSessionTransport(configuration: configuration)

        // When a request without credentials of its own follows the redirect
        let url = first.baseURL.appendingPathComponent("start")
        let response = try await transport.send(HTTPRequest(url: url), maximumBodySize: 1024)

        // Then the first origin got the credentials, the other one only the benign field
        #expect(response.status == 200)
        let started = try #require(first.requests.first)
        #expect(started.headers["authorization"] == "Bearer secret")
        #expect(started.headers["cookie"] == "session=1")
        #expect(started.headers["proxy-authorization"] == "Basic cHJveHk=")
        let landed = try #require(other.requests.first)
        #expect(landed.headers["x-trace"] == "t-1")
        #expect(landed.headers["authorization"] == nil, "\(landed.headers)")
        #expect(landed.headers["cookie"] == nil, "\(landed.headers)")
        #expect(landed.headers["proxy-authorization"] == nil, "\(landed.headers)")
    }

    /// Before, the configuration's fields were set on each request after the request's own were checked, and went to
    /// the wire as they were: a token read from a file with its line break, or a value holding `\r\nX-Admin: 1`,
    /// added a header line (libcurl does not check them).
    @Test(.timeLimit(.minutes(1)), arguments: ["Authorization", "X-Trace"])
    func aConfigurationsFieldThatIsNotOneLineIsRefusedAndNothingSent(name: String) async throws {
        let server = try await LoopbackServer.start([
            ("GET /start", { _ in ServerReply(status: 200, body: Data("ok".utf8)) })
        ])
        defer { Task { await server.stop() } }
        let configuration = URLSessionTransport.defaultConfiguration
        configuration.httpAdditionalHeaders = [name: "Bearer t\r\nX-Injected: 1"]
        let transport = URLSessionTransport(configuration: configuration)

        let error = await #expect(throws: StrataError.self) {
            try await transport.send(
                HTTPRequest(url: server.baseURL.appendingPathComponent("start")),
                maximumBodySize: 1024
            )
        }

        #expect(error?.code == .invalidArgument)
        #expect(server.requests.isEmpty, "\(server.requests.map(\.headers))")
    }

    /// A request's own credential replaces the configuration's, as FoundationNetworking lets a request's field win.
    @Test(.timeLimit(.minutes(1)))
    func aRequestsOwnCredentialsWinOverTheConfigurations() async throws {
        let server = try await LoopbackServer.start([
            ("GET /start", { _ in ServerReply(status: 200, body: Data("ok".utf8)) })
        ])
        defer { Task { await server.stop() } }
        let configuration = URLSessionTransport.defaultConfiguration
        configuration.httpAdditionalHeaders = ["Authorization": "Bearer session"]
        var request = HTTPRequest(url: server.baseURL.appendingPathComponent("start"))
        request.headers["authorization"] = "Bearer request"

        _ = try await URLSessionTransport(configuration: configuration).send(request, maximumBodySize: 1024)

        let started = try #require(server.requests.first)
        #expect(started.headers["authorization"] == "Bearer request")
    }

    /// A redirect within the origin keeps the request's fields: the credentials were meant for it.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func credentialsFollowARedirectWithinTheOrigin(transport kind: TransportUnderTest) async throws {
        let server = try await LoopbackServer.start([
            ("GET /start", { _ in ServerReply(status: 302, headers: ["Location": "/landing"]) }),
            ("GET /landing", { _ in ServerReply(status: 200, body: Data("ok".utf8)) }),
        ])
        defer { Task { await server.stop() } }

        let response = try await makeClient(kind.make()).send(try request(to: server))

        #expect(response.status == 200)
        let landed = try #require(server.requests.first { $0.path == "/landing" })
        #expect(landed.headers["authorization"] == "Bearer token")
        #expect(landed.headers["cookie"]?.contains("session=1") == true)
    }

    @Test func theRuleRefusesADowngradeAndOtherSchemesAndStripsCredentialsAcrossOrigins() throws {
        func redirect(to target: String) throws -> URLRequest {
            var request = URLRequest(url: try #require(URL(string: target)))
            request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
            request.setValue("t-1", forHTTPHeaderField: "X-Trace")
            return request
        }
        let secure = try #require(URL(string: "https://api.example/start"))

        #expect(RedirectRule.follow(try redirect(to: "http://api.example/landing"), from: secure, status: 302) == nil)
        #expect(RedirectRule.follow(try redirect(to: "file:///etc/passwd"), from: secure, status: 302) == nil)
        #expect(RedirectRule.follow(try redirect(to: "https://api.example/x"), from: secure, status: 305) == nil)
        // Credentials that do not decode are refused whatever the origin, as in a request's own URL.
        #expect(
            RedirectRule.follow(try redirect(to: "https://a%FFb:pw@api.example/x"), from: secure, status: 302) == nil
        )
        #expect(
            RedirectRule.follow(try redirect(to: "https://ann:p%FF@cdn.example/x"), from: secure, status: 302) == nil
        )
        let sameOrigin = try #require(
            RedirectRule.follow(try redirect(to: "https://API.example:443/x"), from: secure, status: 307)
        )
        #expect(sameOrigin.value(forHTTPHeaderField: "Authorization") == "Bearer token")
        let other = try #require(
            RedirectRule.follow(try redirect(to: "https://ann:secret@cdn.example/x"), from: secure, status: 301)
        )
        #expect(other.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(other.value(forHTTPHeaderField: "X-Trace") == "t-1")
        #expect(other.url?.absoluteString == "https://cdn.example/x")
    }

    /// Before, the default URLSession transport kept every `Set-Cookie` in a jar for the process, and sent it with
    /// every later request to that host, whoever it was made for; AsyncHTTPClient keeps none.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aCookieOneResponseSetsIsNotSentWithTheNextRequest(transport kind: TransportUnderTest) async throws {
        let server = try await LoopbackServer.start([
            ("GET /login", { _ in ServerReply(status: 200, headers: ["Set-Cookie": "session=ann; Path=/"]) }),
            ("GET /profile", { _ in ServerReply(status: 200, body: Data("ok".utf8)) }),
        ])
        defer { Task { await server.stop() } }
        let client = makeClient(kind.make())

        _ = try await client.send(HTTPRequest(url: server.baseURL.appendingPathComponent("login")))
        _ = try await client.send(HTTPRequest(url: server.baseURL.appendingPathComponent("profile")))

        let profile = try #require(server.requests.first { $0.path == "/profile" })
        #expect(profile.headers["cookie"] == nil, "\(profile.headers)")
    }
}
