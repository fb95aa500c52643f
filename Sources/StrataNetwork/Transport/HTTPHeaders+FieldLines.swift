extension HTTPHeaders {
    /// The lower-cased names of the list fields whose members are split back into fields: their members never
    /// hold a comma outside quotes (or, in `Link`, outside the angle brackets of a URI reference).
    static let splittableListFields: Set<String> = ["cache-control", "link", "vary", "allow", "pragma"]

    /// Headers from a table that joined repeated fields with `", "` (FoundationNetworking's
    /// `allHeaderFields`), with the fields it joined split back, in order: `Set-Cookie` at each `", "` that
    /// starts another `name=` (never inside an `Expires` date), and the list fields of
    /// ``splittableListFields`` at every comma outside quotes (and, in `Link`, angle brackets): one field per
    /// member, which RFC 9110, section 5.3, makes equivalent, read as ``CacheControl`` reads its members. Every
    /// other field stays as received.
    ///
    /// - Parameter joined: Values by name, repeated fields joined.
    static func splittingJoinedFields(_ joined: [(name: String, value: String)]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in joined {
            let lowered = name.lowercased()
            let values: [String]
            if lowered == "set-cookie" {
                values = splitCookies(value)
            } else if splittableListFields.contains(lowered) {
                values = splitList(value, groupsAngleBrackets: lowered == "link")
            } else {
                values = [value]
            }
            for value in values { headers.add(value, for: name) }
        }
        return headers
    }

    /// Splits joined `Set-Cookie` values at each `", "` followed by a cookie name and `=`, by bytes (a mark after
    /// the comma, the space or the `=` would join it into one `Character` with them).
    private static func splitCookies(_ value: String) -> [String] {
        let bytes = value.utf8
        var cookies: [String] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let comma = index
            index = bytes.index(after: index)
            guard bytes[comma] == UInt8(ascii: ","), index != bytes.endIndex, bytes[index] == UInt8(ascii: " ")
            else { continue }
            let next = bytes.index(after: index)
            let name = bytes[next...].prefix { !"=;, ".utf8.contains($0) }
            guard !name.isEmpty, name.endIndex != bytes.endIndex, bytes[name.endIndex] == UInt8(ascii: "=") else {
                continue
            }
            cookies.append(String(Substring(bytes[start..<comma])))
            start = next
            index = next
        }
        cookies.append(String(Substring(bytes[start...])))
        return cookies
    }

    /// Splits a list value at each comma outside quotes (and, with `groupsAngleBrackets`, outside `<…>`); empty
    /// members are dropped.
    private static func splitList(_ value: String, groupsAngleBrackets: Bool) -> [String] {
        let kept = HTTPList.members(of: value, groupsAngleBrackets: groupsAngleBrackets)
            .map { $0.trimmingOptionalWhitespace() }
            .filter { !$0.isEmpty }
        return kept.isEmpty ? [value] : kept
    }
}
