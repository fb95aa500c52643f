extension HTTPResponse {
    /// The longest `Content-Type` a decoding error shows: 128 bytes.
    static let shownContentTypeLimit = 128

    /// What a decoding error says of a response, its body withheld: `HTTP 200, 1843 bytes, Content-Type text/html`.
    ///
    /// The `Content-Type` is the server's text: it is shown only when it is printable ASCII and at most
    /// ``shownContentTypeLimit`` bytes, so that a message never carries control characters or an endless value.
    var describedForDecodingErrors: String {
        let size = body.count == 1 ? "1 byte" : "\(body.count) bytes"
        return "HTTP \(status), \(size), \(describedContentType)"
    }

    private var describedContentType: String {
        guard let contentType = headers["Content-Type"] else { return "no Content-Type" }
        let bytes = contentType.utf8
        guard bytes.count <= Self.shownContentTypeLimit, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return "a Content-Type not shown (\(bytes.count) bytes)"
        }
        return "Content-Type \(contentType)"
    }
}
