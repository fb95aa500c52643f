/// The members of a comma-separated list field (RFC 9110, section 5.6.1), for `Cache-Control` and for the list
/// fields a transport splits back into field lines.
enum HTTPList {
    /// Splits `value` at each comma outside quoted strings (and, with `groupsAngleBrackets`, outside `<…>`);
    /// members are untrimmed and empty ones kept.
    ///
    /// A quote opens a quoted string only where one can start: at a member's start or after a character that is
    /// not a token character (`=`, `;`, whitespace, the `/` of `W/`). A quote inside a token (`x=a"b`) is one of
    /// its characters, so it cannot swallow the members after it. A quoted string still open at the end is none
    /// (it cannot span field lines, RFC 9110, section 5.3, and joined lines look like one): the member is split
    /// again with its quotes read as characters, so a malformed member loses only itself. A `<` still open at the
    /// end is read the same way: as a character, so it cannot swallow the members (or field lines) after it.
    static func members(of value: String, groupsAngleBrackets: Bool = false) -> [String] {
        members(of: value, groupsAngleBrackets: groupsAngleBrackets, readsQuotes: true)
    }

    /// ``members(of:groupsAngleBrackets:)``, quotes read as quoted strings or as characters.
    private static func members(of value: String, groupsAngleBrackets: Bool, readsQuotes: Bool) -> [String] {
        var members: [String] = []
        var current = ""
        var openQuote: String.Index?
        var escaped = false
        var angleDepth = 0
        var previous: Character?
        for character in value {
            defer { previous = character }
            if openQuote != nil {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    openQuote = nil
                }
            } else if readsQuotes, character == "\"", !(previous.map(isTokenCharacter) ?? false) {
                openQuote = current.endIndex
            } else if groupsAngleBrackets, character == "<" {
                angleDepth += 1
            } else if groupsAngleBrackets, character == ">", angleDepth > 0 {
                angleDepth -= 1
            } else if character == ",", angleDepth == 0 {
                members.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        guard openQuote != nil || angleDepth > 0 else {
            members.append(current)
            return members
        }
        // The member again from its start, the construct still open read as characters: the quote if one is
        // open (its angle brackets still group), else the angle bracket. Each pass turns one off, so it ends.
        let rest =
            openQuote != nil
            ? Self.members(of: current, groupsAngleBrackets: groupsAngleBrackets, readsQuotes: false)
            : Self.members(of: current, groupsAngleBrackets: false, readsQuotes: readsQuotes)
        return members + rest
    }

    /// Whether `character` is a `tchar` of RFC 9110, section 5.6.2.
    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(ascii)
        }
    }
}
