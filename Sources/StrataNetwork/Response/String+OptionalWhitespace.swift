extension StringProtocol {
    /// The string without leading and trailing HTTP optional whitespace (space and horizontal tab, RFC 9110
    /// section 5.6.3), without Foundation's bridging.
    func trimmingOptionalWhitespace() -> String {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isWhitespace($0) }),
            let last = lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
