import Foundation

/// The blobs the crash writer serves and fetches: a header line naming the blob and its version, then seeded
/// filler of 0 to 40 KB, so a stored body tells which version it claims to be and any mix of two shows.
enum CrashBlob {
    /// How many blob paths the writer uses: `/blob/p0` … `/blob/p15`.
    static let count = 16

    /// The cache's base URL in every writer and checker, so keys stay the same whatever port a writer's
    /// server has; the writer's transport sends every request to its own loopback server.
    static let baseURL = URL(string: "http://blobs.crash.invalid/") ?? URL(fileURLWithPath: "/")

    /// The URL of blob `name`, relative to ``baseURL``.
    static func url(_ name: String) -> URL {
        URL(string: "blob/\(name)", relativeTo: baseURL) ?? baseURL
    }

    /// The body of `version` of blob `name`.
    static func body(name: String, version: Int) -> Data {
        var bytes = Array("\(name) \(version)\n".utf8)
        let length = (version &* 7_919) % 40_000
        var state = UInt64(truncatingIfNeeded: version) &* 0x9E37_79B9_7F4A_7C15
        for byte in name.utf8 { state = state &* 31 &+ UInt64(byte) }
        bytes.reserveCapacity(bytes.count + length)
        for _ in 0..<length {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        return Data(bytes)
    }

    /// The blob name and version a body claims in its header line, or `nil` when it has none.
    static func header(of body: Data) -> (name: String, version: Int)? {
        guard let newline = body.prefix(64).firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let parts = String(decoding: body[body.startIndex..<newline], as: UTF8.self).split(separator: " ")
        guard parts.count == 2, let version = Int(parts[1]) else { return nil }
        return (String(parts[0]), version)
    }

    /// The version a body is, when it is exactly the body of the version its header names.
    static func version(of body: Data, name: String) -> Int? {
        guard let header = header(of: body), header.name == name, body == Self.body(name: name, version: header.version)
        else { return nil }
        return header.version
    }
}
