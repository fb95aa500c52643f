import Foundation
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// Only `http` and `https` URLs with a host are requested: a URL that names a local file or another protocol (taken
/// from a server's answer, or a `fileURLWithPath:` meant as a path) is `invalidArgument` before a transport sees it.
struct URLSchemeTests {
    /// URLs that are not `http` or `https` with a host; `file` is replaced by a real file's URL.
    static let refused = [
        "file", "ftp://127.0.0.1/secret", "data:text/plain,secret", "gopher://127.0.0.1/", "http:///x",
    ]

    @Test(
        "A URL that is not http or https is refused before anything is sent",
        arguments: TransportUnderTest.all,
        refused
    )
    func aURLThatIsNotHTTPIsRefused(transport kind: TransportUnderTest, url text: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let secret = folder.url.appendingPathComponent("secret.txt")
        try Data("secret".utf8).write(to: secret)
        let url = try #require(text == "file" ? secret : URL(string: text))
        let client = makeClient(kind.make(), downloadDirectory: folder.url.appendingPathComponent("downloads"))
        let request = HTTPRequest(url: url)

        var answered: Data?
        let sent = await strataError { answered = try await client.send(request).body }
        let downloaded = await strataError { _ = try await client.download(request) }
        let built = await strataError { _ = try request.urlRequest() }

        #expect(answered == nil, "the request was answered: \(String(decoding: answered ?? Data(), as: UTF8.self))")
        for error in [sent, downloaded, built] {
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
        }
        #expect(sent?.message.contains("http or https") == true || sent?.message.contains("no host") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("downloads").path))
    }

    @Test func httpAndHTTPSInAnyCaseAreAccepted() throws {
        for text in ["http://127.0.0.1/a", "HTTPS://example.com/b", "Http://example.com:8080/c?d=1"] {
            let url = try #require(URL(string: text))
            #expect(throws: Never.self) { try HTTPRequest(url: url).validate() }
        }
    }
}
