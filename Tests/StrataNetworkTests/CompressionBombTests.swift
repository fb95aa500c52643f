import Foundation
import Strata
import Testing

@testable import StrataNetwork

/// A compressed body that inflates far past the limit — a few kilobytes on the wire, megabytes of zeros once
/// inflated — is held to the limit like any other: a transport that inflates it counts the inflated bytes, one
/// that hands it on as it came holds only what came.
struct CompressionBombTests {
    static let limit = 1024 * 1024

    /// 8 MiB of zeros (and one), gzip-compressed to about 50 KiB.
    static let bomb = GzipOfZeros(count: 1 + 258 * 32_768)

    /// A server that answers every request with the bomb, `Content-Encoding: gzip`, its compressed length.
    static func bombServer() throws -> RawServer {
        let body = bomb.data
        return try RawServer.start { write in
            let head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(body.count)\r\n"
            try write(Data((head + "Connection: close\r\n\r\n").utf8))
            try write(body)
        }
    }

    /// The outcome a transport must have: `URLSession` inflates gzip bodies itself (libcurl's automatic
    /// decompression), so it must stop at the limit; AsyncHTTPClient hands the body on compressed, so it must
    /// return the compressed bytes.
    static func expectOutcome(_ kind: TransportUnderTest, error: StrataError?, bodyCount: Int?) {
        if kind.name == TransportUnderTest.urlSession.name {
            #expect(error?.code == .tooLarge, "\(String(describing: error))")
        } else {
            #expect(error == nil, "\(String(describing: error))")
            #expect(bodyCount == bomb.data.count)
        }
    }

    @Test(
        "A compressed body that inflates past the limit is held to it, in memory and on disk",
        .timeLimit(.minutes(1)),
        arguments: TransportUnderTest.all,
        LimitedExchange.Form.allCases
    )
    func anInflatedBodyStaysWithinTheLimit(transport kind: TransportUnderTest, form: LimitedExchange.Form)
        async throws
    {
        let server = try Self.bombServer()
        defer { server.stop() }

        let exchange = try await LimitedExchange.run(form, url: server.baseURL, transport: kind, limit: Self.limit)

        Self.expectOutcome(kind, error: exchange.error, bodyCount: exchange.bodyCount)
        #expect(exchange.peakBodyBytes <= Self.limit)
        // A failed download leaves no partial file behind.
        if form == .download { #expect(exchange.filesLeft == (exchange.error == nil ? 1 : 0)) }
    }

    /// The generator's own check: a small stream of the same shape inflates to its zeros, exactly, through the
    /// transport that inflates (so the bomb above is one, not bytes a decoder refuses at once).
    @Test(.timeLimit(.minutes(1))) func aSmallStreamOfTheSameShapeInflatesToItsZeros() async throws {
        let small = GzipOfZeros(count: 1 + 258 * 4)
        let server = try RawServer.start { write in
            let head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(small.data.count)\r\n"
            try write(Data((head + "Connection: close\r\n\r\n").utf8))
            try write(small.data)
        }
        defer { server.stop() }
        let client = HTTPClient(transport: TransportUnderTest.urlSession.make())

        let response = try await client.send(HTTPRequest(url: server.baseURL))

        #expect(response.body == Data(count: 1 + 258 * 4))
        #expect(Self.bomb.data.count < 64 * 1024)
    }
}

/// A gzip stream (RFC 1952) of `count` zero bytes, built without a compressor: one deflate block with the fixed
/// Huffman codes (RFC 1951 §3.2.6) holding one literal zero, then copies of 258 bytes at distance 1.
struct GzipOfZeros {
    let data: Data

    /// `count` must be 1 more than a multiple of 258.
    init(count: Int) {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        bits.writeCode(0x30, length: 8)  // the literal 0
        for _ in 0..<(count / 258) {
            bits.writeCode(0xC5, length: 8)  // length symbol 285: 258 bytes
            bits.writeCode(0, length: 5)  // distance symbol 0: distance 1
        }
        bits.writeCode(0, length: 7)  // end of block (symbol 256)
        var data = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])  // gzip header: deflate, no name, unknown OS
        data.append(contentsOf: bits.bytes)
        data.append(contentsOf: Self.littleEndian(Self.crc32OfZeros(count: count)))
        data.append(contentsOf: Self.littleEndian(UInt32(truncatingIfNeeded: count)))
        self.data = data
    }

    /// CRC-32 (the polynomial of RFC 1952) of `count` zero bytes, a byte at a time through the usual table.
    static func crc32OfZeros(count: Int) -> UInt32 {
        let table = (0..<256).map { index -> UInt32 in
            var entry = UInt32(index)
            for _ in 0..<8 { entry = entry & 1 == 1 ? (entry >> 1) ^ 0xEDB8_8320 : entry >> 1 }
            return entry
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for _ in 0..<count { crc = table[Int(crc & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// Packs bits as deflate does: from the least significant bit of each byte up.
    struct BitWriter {
        var bytes: [UInt8] = []
        var used = 8

        /// Writes `count` bits of `value`, its least significant first (header fields and extra bits).
        mutating func write(_ value: Int, count: Int) {
            for bit in 0..<count { append((value >> bit) & 1) }
        }

        /// Writes a Huffman code, its most significant bit first.
        mutating func writeCode(_ code: Int, length: Int) {
            for bit in stride(from: length - 1, through: 0, by: -1) { append((code >> bit) & 1) }
        }

        private mutating func append(_ bit: Int) {
            if used == 8 {
                bytes.append(0)
                used = 0
            }
            bytes[bytes.count - 1] |= UInt8(bit) << UInt8(used)
            used += 1
        }
    }
}
