#if Postgres
    import Strata

    /// What one notification on a table's channel says, as the table's triggers write it.
    ///
    /// Anyone who may connect may `NOTIFY` on any channel, with any payload: only the shapes the triggers write are
    /// read, and any other text is no notification of the table's.
    enum PostgresFeedPayload: Equatable, Sendable {
        /// `<version>:p:<key>` (written) or `<version>:d:<key>` (deleted): one key changed, at `version`.
        case change(key: String, version: Int64, isDelete: Bool)
        /// `<version>:a:`: every key may have changed (a `TRUNCATE`, a key too long to announce, the table made again).
        case everyKey
        /// `h:<token>`: a feed's heartbeat, sent to itself (``text(ofHeartbeat:)``); every feed on the channel hears it.
        case heartbeat(token: UInt64)

        /// The payload of a heartbeat: `h:<token>`.
        static func text(ofHeartbeat token: UInt64) -> String { "h:\(token)" }

        /// Parses a payload; `nil` for any other text, for a version that is not a 64-bit number of decimal digits,
        /// and for a change with no key.
        ///
        /// Read byte by byte (UTF-8), not by `Character`: a key may begin with a combining mark, which would make the
        /// colon before it one `Character` with it, and the change of that key would not be heard.
        init?(_ payload: String) {
            let bytes = payload.utf8
            if bytes.starts(with: "h:".utf8) {
                let token = bytes.dropFirst(2)
                guard Self.isDecimal(token), let token = UInt64(Substring(token)) else { return nil }
                self = .heartbeat(token: token)
                return
            }
            let colon = UInt8(ascii: ":")
            guard let first = bytes.firstIndex(of: colon) else { return nil }
            let versionText = bytes[..<first]
            guard Self.isDecimal(versionText), let version = Int64(Substring(versionText)) else { return nil }
            let rest = bytes[bytes.index(after: first)...]
            guard let second = rest.firstIndex(of: colon) else { return nil }
            let kind = rest[..<second]
            let key = rest[rest.index(after: second)...]
            guard let letter = kind.first, kind.count == 1 else { return nil }
            switch (letter, key.isEmpty) {
            case (UInt8(ascii: "a"), true):
                self = .everyKey
            case (UInt8(ascii: "p"), false), (UInt8(ascii: "d"), false):
                self = .change(key: String(Substring(key)), version: version, isDelete: letter == UInt8(ascii: "d"))
            default:
                return nil
            }
        }

        /// Whether `text` is one or more decimal digits, and nothing else (no sign, no space).
        private static func isDecimal(_ text: Substring.UTF8View) -> Bool {
            !text.isEmpty && text.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
    }
#endif
