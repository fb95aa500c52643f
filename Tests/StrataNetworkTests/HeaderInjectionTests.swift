import Foundation
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// No header name, header value or method can add a line on the wire: an invalid one is an
/// `invalidArgument` error before anything is sent, which a raw server that records every request head checks.
struct HeaderInjectionTests {
    /// Headers that would split or forge a line, or are not RFC 9110 tokens and field values.
    static let invalidHeaders: [(name: String, value: String)] = [
        ("X-A\r\nInjected", "1"),
        ("X-A\nInjected", "1"),
        ("X-A", "1\r\nInjected: yes"),
        ("X-A", "1\nInjected: yes"),
        ("X-A", "1\rInjected: yes"),
        ("X-A", "a\u{0}b"),
        ("X-A", "a\u{1B}[2J"),
        ("X-A", "a\u{7F}"),
        ("X-A\u{0}", "1"),
        ("", "1"),
        ("X A", "1"),
        ("X-A:", "1"),
        ("X-A\t", "1"),
        ("Ä", "1"),
        ("(comment)", "1"),
        ("\"quoted\"", "1"),
    ]

    static func serverThatAnswers() throws -> RawServer {
        try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8))
        }
    }

    @Test("An invalid header is refused before anything is sent", arguments: TransportUnderTest.all, invalidHeaders)
    func invalidHeaderIsRefused(transport kind: TransportUnderTest, header: (name: String, value: String)) async throws
    {
        let (name, value) = header
        let server = try Self.serverThatAnswers()
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)
        var request = HTTPRequest(url: server.baseURL)
        request.headers.add(value, for: name)

        let sent = await strataError { _ = try await client.send(request) }
        let downloaded = await strataError { _ = try await client.download(request) }
        let built = await strataError { _ = try request.urlRequest() }

        for error in [sent, downloaded, built] {
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
            #expect(error?.message.contains("\r") == false && error?.message.contains("\n") == false)
        }
        #expect(server.requestHeads.isEmpty)
        #expect(try folder.contents().isEmpty)
    }

    /// A client's default headers are checked as well: they are merged into every request.
    @Test(arguments: TransportUnderTest.all)
    func invalidDefaultHeadersAreRefused(transport kind: TransportUnderTest)
        async throws
    {
        let server = try Self.serverThatAnswers()
        defer { server.stop() }
        let client = HTTPClient(
            transport: kind.make(),
            configuration: .init(headers: ["X-Default": "1\r\nInjected: yes"])
        )

        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }

        #expect(error?.code == .invalidArgument)
        #expect(server.requestHeads.isEmpty)
    }

    @Test(
        "A method that is not a token is refused",
        arguments: TransportUnderTest.all,
        ["GET / HTTP/1.1\r\nInjected: yes\r\n\r\nGET", "GET\u{0}", "", "G T"]
    )
    func invalidMethodIsRefused(transport kind: TransportUnderTest, method: String) async throws {
        let server = try Self.serverThatAnswers()
        defer { server.stop() }

        let request = HTTPRequest(HTTPMethod(rawValue: method), baseURL: server.baseURL)
        let error = await strataError { _ = try await makeClient(kind.make()).send(request) }

        #expect(error?.code == .invalidArgument)
        #expect(server.requestHeads.isEmpty)
    }

    /// What the grammar allows still goes out as given: every token character, a tab, UTF-8 (obs-text).
    @Test(arguments: TransportUnderTest.all)
    func validHeadersReachTheWire(transport kind: TransportUnderTest)
        async throws
    {
        let server = try Self.serverThatAnswers()
        defer { server.stop() }
        var request = HTTPRequest(url: server.baseURL)
        request.headers.add("a\tb", for: "X-Tab")
        request.headers.add("café", for: "X-Unicode")
        request.headers.add("1", for: "!#$%&'*+-.^_`|~09azAZ")

        let response = try await makeClient(kind.make()).send(request)

        #expect(response.body == Data("ok".utf8))
        let head = try #require(server.requestHeads.first)
        #expect(head.contains("X-Tab: a\tb\r\n"))
        #expect(head.contains("X-Unicode: café\r\n"))
        // Foundation may change the case of a name, never its characters.
        #expect(head.lowercased().contains("!#$%&'*+-.^_`|~09azaz: 1\r\n"))
    }

    /// A stored `Last-Modified` with a control character is left out of a conditional request, like an
    /// invalid entity tag, rather than making the request fail.
    @Test func anUnsendableValidatorIsLeftOut() {
        let conditions = ConditionalHeaders(eTag: "\"v1\"", lastModified: "Sun, 06 Nov 1994\r\nInjected: yes")
        #expect(conditions.headers["If-Modified-Since"] == nil)
        #expect(conditions.headers["If-None-Match"] == "\"v1\"")
    }

    /// A caller's framing fields are refused before anything is sent: a `Content-Length` shorter than the body made
    /// libcurl send the rest of the body as another request on the connection (whose answer the next request on
    /// it received), a longer one left the server waiting; `Transfer-Encoding` is the transport's. A length that is
    /// the body's is allowed.
    static let framingFields = [
        ("Content-Length", "0"), ("Content-Length", "1000"), ("Content-Length", "-5"), ("Content-Length", "+39"),
        ("Transfer-Encoding", "chunked"), ("transfer-encoding", "identity"),
    ]

    @Test(arguments: TransportUnderTest.all, framingFields)
    func aCallersFramingFieldIsRefused(transport kind: TransportUnderTest, field: (String, String)) async throws {
        let server = try Self.serverThatAnswers()
        defer { server.stop() }
        let client = makeClient(kind.make())
        let smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
        var request = HTTPRequest(.post, baseURL: server.baseURL, body: Data(smuggled.utf8))
        request.headers.add(field.1, for: field.0)

        let sent = await strataError { _ = try await client.send(request) }
        let built = await strataError { _ = try request.urlRequest() }

        #expect(sent?.code == .invalidArgument, "\(String(describing: sent))")
        #expect(built?.code == .invalidArgument)
        #expect(server.requestHeads.isEmpty)
    }

    @Test(arguments: TransportUnderTest.all)
    func aContentLengthThatIsTheBodysIsSent(transport kind: TransportUnderTest) async throws {
        let server = try Self.serverThatAnswers()
        defer { server.stop() }
        var request = HTTPRequest(.post, baseURL: server.baseURL, body: Data("abc".utf8))
        request.headers.add("3", for: "Content-Length")

        #expect(try await makeClient(kind.make()).send(request).status == 200)
        let empty = HTTPRequest(baseURL: server.baseURL, headers: ["Content-Length": "0"])
        #expect(throws: Never.self) { try empty.validate() }
        #expect(throws: StrataError.self) {
            var twice = request
            twice.headers.add("3", for: "Content-Length")
            try twice.validate()
        }
    }

}
