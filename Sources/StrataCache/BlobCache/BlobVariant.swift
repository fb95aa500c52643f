import Foundation
import StrataNetwork

/// The request fields a blob's response varied on (its `Vary`, RFC 9111, section 4.1) and one digest of the values
/// its request sent in them: the persistent layer serves the blob only to a request that sends the same values, so
/// that after a language switch or a sign-in the other answer is not served.
///
/// The values are kept as one SHA-256 digest (`HTTPRequest.variedFieldsDigest(of:)`, a credential field's values
/// digested first), never as they were sent: a token never reaches the folder, and the record stays a few dozen bytes.
struct BlobVariant: Codable, Sendable, Equatable {
    /// The fields' lowercased names, sorted.
    var names: [String]
    /// The digest of the values the request sent in them.
    var digest: String

    /// The most bytes of names a variant keeps: its record lives in the entry's attributes, at most 4 KiB.
    static let maximumNamesLength = 1_024

    /// The variant of `response` to `request` — with no names when it varies on none — or `nil` when it nominates
    /// more fields than a cache keeps (`HTTPResponse.maximumVariedFields`, or names longer than
    /// ``maximumNamesLength``): such a response is not stored.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - request: The request as sent.
    init?(of response: HTTPResponse, answering request: HTTPRequest) {
        guard let fields = response.variedFields(of: request) else { return nil }
        names = fields.keys.sorted()
        guard names.reduce(0, { $0 + $1.utf8.count }) <= Self.maximumNamesLength else { return nil }
        digest = HTTPRequest.digest(ofVariedFields: fields)
    }

    /// Whether `request` sends the values the blob's request sent in the varied fields.
    ///
    /// - Parameter request: The request as it would be sent.
    func matches(_ request: HTTPRequest) -> Bool {
        request.variedFieldsDigest(of: names) == digest
    }
}

extension BlobVariant {
    /// The variant as a record writes it: the digest's length (1 byte) and UTF-8, the number of names (1 byte), then
    /// each name's length (2 bytes, little-endian) and UTF-8.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        let digestBytes = Array(digest.utf8.prefix(Int(UInt8.max)))
        bytes.append(UInt8(digestBytes.count))
        bytes += digestBytes
        let kept = names.prefix(Int(UInt8.max))
        bytes.append(UInt8(kept.count))
        for name in kept {
            let nameBytes = Array(name.utf8.prefix(Int(UInt16.max)))
            withUnsafeBytes(of: UInt16(nameBytes.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes += nameBytes
        }
        return bytes
    }

    /// The variant ``encoded()`` wrote in `bytes`, all of them; `nil` for any other bytes.
    static func decode(_ bytes: some Collection<UInt8>) -> BlobVariant? {
        var reader = ByteReader(bytes: Array(bytes))
        guard let digestLength = reader.byte(), let digest = reader.text(count: Int(digestLength)),
            let count = reader.byte()
        else { return nil }
        var names: [String] = []
        for _ in 0..<count {
            guard let low = reader.byte(), let high = reader.byte(),
                let name = reader.text(count: Int(low) | Int(high) << 8)
            else { return nil }
            names.append(name)
        }
        guard reader.isAtEnd else { return nil }
        return BlobVariant(names: names, digest: digest)
    }

    private init(names: [String], digest: String) {
        self.names = names
        self.digest = digest
    }
}

/// Reads bytes in order, never past their end.
private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next `count` bytes as UTF-8; `nil` when fewer remain or they are not UTF-8.
    mutating func text(count: Int) -> String? {
        guard count <= bytes.count - offset else { return nil }
        let slice = bytes[offset..<offset + count]
        offset += count
        return String(bytes: slice, encoding: .utf8)
    }
}
