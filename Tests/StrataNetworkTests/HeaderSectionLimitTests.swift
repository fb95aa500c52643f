import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// A server that never ends its header section cannot make a transport hold it: headers are bounded far below
/// the body limit by the transport's HTTP parser (libcurl: 300 KiB per response, interim responses included;
/// NIO: 80 KiB per response), and a flood of header lines ends in a network error, long before the request's
/// deadline. Interim responses are another matter for NIO, which drops each one as it ends: nothing piles up, and
/// the final response is returned (an interim flood that never ends meets the request's deadline).
struct HeaderSectionLimitTests {
    /// How a hostile server floods the header section, then sends a body, whatever the client does: 20 MB of header
    /// lines, or 1.8 MB of interim responses (six times libcurl's bound; NIO drops each, and 20 MB of them took it
    /// past the 30 s idle timeout when the trait suites' parallel run loaded the machine).
    enum Flood: String, CaseIterable, Sendable {
        /// Header lines of a hundred bytes, one after another.
        case endlessFields
        /// `100 Continue` interim responses, one after another, never the final one.
        case endlessInterimResponses

        func write(_ write: RawServer.Write) throws {
            switch self {
            case .endlessFields:
                try write(Data("HTTP/1.1 200 OK\r\n".utf8))
                let lines = String(repeating: "X-Filler: \(String(repeating: "a", count: 90))\r\n", count: 1_000)
                for _ in 0..<200 { try write(Data(lines.utf8)) }
                try write(Data("Content-Length: 2\r\n\r\nok".utf8))
            case .endlessInterimResponses:
                let interim = String(repeating: "HTTP/1.1 100 Continue\r\nX-Filler: a\r\n\r\n", count: 1_000)
                for _ in 0..<50 { try write(Data(interim.utf8)) }
                try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8))
            }
        }
    }

    @Test(
        "An endless header section is a network error, not a response",
        .timeLimit(.minutes(1)),
        arguments: TransportUnderTest.all,
        Flood.allCases
    )
    func anEndlessHeaderSectionIsANetworkError(transport kind: TransportUnderTest, flood: Flood) async throws {
        let server = try RawServer.start { write in try flood.write(write) }
        defer { server.stop() }
        let transport = kind.make()
        // A deadline far beyond the flood's few hundred milliseconds: it is the parser's bound that ends it.
        let request = HTTPRequest(.get, baseURL: server.baseURL, timeout: .seconds(30), totalTimeout: .seconds(50))

        var body: Data?
        let error = await strataError { body = try await HTTPClient(transport: transport).send(request).body }

        if flood == .endlessInterimResponses, kind.name != TransportUnderTest.urlSession.name {
            #expect(error == nil, "\(String(describing: error))")
            #expect(body == Data("ok".utf8))
        } else {
            #expect(error?.code == .network, "\(String(describing: error))")
            #expect(error?.message.contains("deadline") == false, "\(String(describing: error))")
            #expect(transport.peakBodyBytes == 0)
        }
    }
}
