/// The members of a comma-separated list field (RFC 9110, section 5.6.1), for `Cache-Control` and for the list
/// fields a transport splits back into field lines.
///
/// Read byte by byte (UTF-8), not by `Character`: every delimiter is ASCII, and a combining mark or a joiner after a
/// comma would make the two one `Character`, so that the member after it would run into the one before (a
/// `no-store,\u{200D}` read as one unknown directive, the `no-store` lost).
enum HTTPList {
    /// Splits `value` at each comma outside quoted strings (and, with `groupsAngleBrackets`, outside `<…>`);
    /// members are untrimmed and empty ones kept.
    ///
    /// A quote opens a quoted string only where one can start: at a member's start or after a byte that is not a
    /// token character (`=`, `;`, whitespace, the `/` of `W/`). A quote inside a token (`x=a"b`) is one of its
    /// characters, so it cannot swallow the members after it. A quoted string still open at the end is none (it
    /// cannot span field lines, RFC 9110, section 5.3, and joined lines look like one): the member is split again
    /// with its quotes read as characters, so a malformed member loses only itself. A `<` still open at the end is
    /// read the same way: as a character, so it cannot swallow the members (or field lines) after it.
    static func members(of value: String, groupsAngleBrackets: Bool = false) -> [String] {
        members(of: value[...], groupsAngleBrackets: groupsAngleBrackets, readsQuotes: true)
    }

    /// Splits `value` at every comma, quotes and all, each member trimmed of optional whitespace: for fields whose
    /// members are tokens (`Vary`'s field names) and for comparing a request's field values as sent.
    ///
    /// - Parameters:
    ///   - value: The field's value.
    ///   - omittingEmpty: Whether members empty after trimming are dropped.
    static func plainMembers(of value: String, omittingEmpty: Bool) -> [String] {
        value.utf8.split(separator: comma, omittingEmptySubsequences: false)
            .map { Substring($0).trimmingOptionalWhitespace() }
            .filter { !omittingEmpty || !$0.isEmpty }
    }

    private static let comma = UInt8(ascii: ",")
    private static let quote = UInt8(ascii: "\"")

    /// ``members(of:groupsAngleBrackets:)``, quotes read as quoted strings or as characters.
    private static func members(of value: Substring, groupsAngleBrackets: Bool, readsQuotes: Bool) -> [String] {
        let bytes = value.utf8
        var members: [String] = []
        // Every member starts after an ASCII comma (or at the start): at a scalar's start.
        var start = bytes.startIndex
        var isQuoted = false
        var escaped = false
        var angleDepth = 0
        var previous: UInt8?
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            defer {
                previous = byte
                index = bytes.index(after: index)
            }
            if isQuoted {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == quote {
                    isQuoted = false
                }
            } else if readsQuotes, byte == quote, !(previous.map(isTokenCharacter) ?? false) {
                isQuoted = true
            } else if groupsAngleBrackets, byte == UInt8(ascii: "<") {
                angleDepth += 1
            } else if groupsAngleBrackets, byte == UInt8(ascii: ">"), angleDepth > 0 {
                angleDepth -= 1
            } else if byte == comma, angleDepth == 0 {
                members.append(String(Substring(bytes[start..<index])))
                start = bytes.index(after: index)
            }
        }
        let current = value[start...]
        guard isQuoted || angleDepth > 0 else {
            members.append(String(current))
            return members
        }
        // The member again from its start, the construct still open read as characters: the quote if one is
        // open (its angle brackets still group), else the angle bracket. Each pass turns one off, so it ends.
        let rest =
            isQuoted
            ? Self.members(of: current, groupsAngleBrackets: groupsAngleBrackets, readsQuotes: false)
            : Self.members(of: current, groupsAngleBrackets: false, readsQuotes: readsQuotes)
        return members + rest
    }

    /// Whether `byte` is a `tchar` of RFC 9110, section 5.6.2 (a byte of a multi-byte scalar is none).
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
