extension StringProtocol where UTF8View: BidirectionalCollection {
    /// The string without leading and trailing HTTP optional whitespace (space and horizontal tab, RFC 9110
    /// section 5.6.3), without Foundation's bridging.
    ///
    /// By bytes: a space followed by a combining mark is one `Character`, which a trim by `Character` would keep.
    func trimmingOptionalWhitespace() -> String {
        let bytes = utf8
        let isWhitespace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }),
            let last = bytes.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        // Whitespace is ASCII: what is between is whole scalars.
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
