import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// The body limit holds while the body streams: endless bodies and lying lengths end in `tooLarge` (or at the
/// announced length), and the transport never holds more body bytes than the limit — measured by its own
/// high-water mark, not by the process's memory.
struct BodyLimitStreamingTests {
    static let limit = 1024 * 1024

    /// How a hostile server frames a body of `4 × limit` bytes, sent in 64 KiB chunks (then it closes).
    enum Framing: String, CaseIterable, Sendable {
        /// Chunked, never terminated.
        case chunked
        /// No length: the body runs until the connection closes.
        case closeDelimited
        /// `Content-Length` far above the limit.
        case lengthAboveLimit
        /// `Content-Length` of half the limit, then far more bytes.
        case lengthBelowSent
        /// `Content-Length` just under the limit, then the connection closes half-way.
        case lengthAboveSent

        var head: String {
            switch self {
            case .chunked: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            case .closeDelimited: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"
            case .lengthAboveLimit: "HTTP/1.1 200 OK\r\nContent-Length: \(4 * limit)\r\nConnection: close\r\n\r\n"
            case .lengthBelowSent: "HTTP/1.1 200 OK\r\nContent-Length: \(limit / 2)\r\nConnection: close\r\n\r\n"
            case .lengthAboveSent: "HTTP/1.1 200 OK\r\nContent-Length: \(limit - 1)\r\nConnection: close\r\n\r\n"
            }
        }

        /// The bytes the server writes after the head: bounded, whatever the client does.
        var chunkCount: Int { self == .lengthAboveSent ? 8 : 4 * limit / 65_536 }

        func frame(_ chunk: Data) -> Data {
            self == .chunked ? Data("10000\r\n".utf8) + chunk + Data("\r\n".utf8) : chunk
        }
    }

    /// Starts a server that sends `framing`'s head and body, bounded in bytes.
    static func hostileServer(_ framing: Framing) throws -> RawServer {
        try RawServer.start { write in
            try write(Data(framing.head.utf8))
            let chunk = Data(repeating: 7, count: 65_536)
            for _ in 0..<framing.chunkCount { try write(framing.frame(chunk)) }
        }
    }

    /// The outcome each framing must have: the code of the error, or the body length of a success.
    static func expectOutcome(_ framing: Framing, error: StrataError?, bodyCount: Int?) {
        switch framing {
        case .chunked, .closeDelimited, .lengthAboveLimit:
            #expect(error?.code == .tooLarge, "\(String(describing: error))")
            #expect(error?.httpFailure?.status == 200)
        case .lengthBelowSent:
            #expect(error == nil, "\(String(describing: error))")
            #expect(bodyCount == limit / 2)
        case .lengthAboveSent:
            #expect(error?.code == .network, "\(String(describing: error))")
        }
    }

    @Test(
        "A body never exceeds the limit, in memory or on disk",
        .timeLimit(.minutes(1)),
        arguments: TransportUnderTest.all,
        Framing.allCases
    )
    func aBodyStaysWithinTheLimit(transport kind: TransportUnderTest, framing: Framing) async throws {
        let server = try Self.hostileServer(framing)
        defer { server.stop() }

        for form in LimitedExchange.Form.allCases {
            let exchange = try await LimitedExchange.run(form, url: server.baseURL, transport: kind, limit: Self.limit)

            Self.expectOutcome(framing, error: exchange.error, bodyCount: exchange.bodyCount)
            #expect(exchange.peakBodyBytes <= Self.limit, "\(form)")
            if form == .data, framing == .lengthAboveLimit { #expect(exchange.peakBodyBytes == 0) }
            // A failed download leaves no partial file behind.
            if form == .download { #expect(exchange.filesLeft == (exchange.error == nil ? 1 : 0)) }
        }
    }

    /// With the default limit (100 MiB) an endless body fails once past it, with at most 100 MiB held — not
    /// the gigabytes a delegate that copied the whole body at every chunk let queue up behind it.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func theDefaultLimitStopsAnEndlessBody(transport kind: TransportUnderTest) async throws {
        let limit = HTTPClient.Configuration().maximumResponseSize
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            let framed = Data("10000\r\n".utf8) + Data(repeating: 7, count: 65_536) + Data("\r\n".utf8)
            for _ in 0..<(2 * limit / 65_536) { try write(framed) }
        }
        defer { server.stop() }
        let transport = kind.make()

        let error = await strataError {
            _ = try await HTTPClient(transport: transport).send(HTTPRequest(url: server.baseURL))
        }

        #expect(error?.code == .tooLarge, "\(String(describing: error))")
        #expect(transport.peakBodyBytes <= limit)
        #expect(transport.peakBodyBytes > limit / 2)
    }

    /// A `Content-Length` of a terabyte under a limit that allows it, then five bytes and the end of the
    /// connection: the body ends early (`network`), and room was reserved for at most a mebibyte — the transport
    /// reserved the announced length whole, which the allocator cannot give, and the process trapped.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func anAnnouncedLengthIsNotReservedWhole(transport kind: TransportUnderTest) async throws {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: \(1 << 40)\r\nConnection: close\r\n\r\nhello".utf8))
        }
        defer { server.stop() }
        let client = HTTPClient(transport: kind.make(), configuration: .init(maximumResponseSize: .max))

        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }

        #expect(error?.code == .network, "\(String(describing: error))")
        #expect(HTTPExchange.reservation(forContentLength: 1 << 40) == HTTPExchange.maximumReservation)
        #expect(HTTPExchange.reservation(forContentLength: 5) == 5)
        #expect(HTTPExchange.reservation(forContentLength: -1) == 0)
    }
}
