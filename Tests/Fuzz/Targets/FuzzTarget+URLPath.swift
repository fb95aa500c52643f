#if DEBUG
    import Foundation
    @testable import StrataNetwork

    extension FuzzTarget {
        /// Reads the input as a URL's path and finds its first dot segment (`HTTPRequest.dotSegment`, which reads
        /// bytes): the same segment, decoding or not, as Foundation's decoding of each segment finds; and, as a whole
        /// URL's path, `HTTPRequest.url()` refuses it exactly then, and a user and password in the URL never trap.
        static func urlPath(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            let path = String(decoding: bytes, as: UTF8.self)
            for decoding in [false, true] {
                let found = HTTPRequest.dotSegment(in: Substring(path), decoding: decoding)
                let expected = path.utf8.split(separator: UInt8(ascii: "/")).lazy.map { String(Substring($0)) }
                    .first { segment in
                        let shown = decoding ? segment.removingPercentEncoding ?? segment : segment
                        return shown == "." || shown == ".."
                    }
                try expect(
                    found == expected,
                    "found \(String(describing: found)), not \(String(describing: expected))",
                    input: bytes
                )
            }
            guard let url = URL(string: "http://u%FF:p@127.0.0.1/" + path) else { return }
            let request = HTTPRequest(url: url)
            _ = try? request.url()
            _ = try? request.validate()
            _ = url.carriesCredentials
            _ = try? url.credentials()
        }
    }
#endif
