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
        init?(_ payload: String) {
            if payload.hasPrefix("h:") {
                let token = payload.dropFirst(2)
                guard Self.isDecimal(token), let token = UInt64(token) else { return nil }
                self = .heartbeat(token: token)
                return
            }
            let parts = payload.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, Self.isDecimal(parts[0]), let version = Int64(parts[0]) else { return nil }
            switch (parts[1], parts[2].isEmpty) {
            case ("a", true):
                self = .everyKey
            case ("p", false), ("d", false):
                self = .change(key: String(parts[2]), version: version, isDelete: parts[1] == "d")
            default:
                return nil
            }
        }

        /// Whether `text` is one or more decimal digits, and nothing else (no sign, no space).
        private static func isDecimal(_ text: Substring) -> Bool {
            !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
    }
#endif
