#if DEBUG && Postgres
    import Foundation
    @testable import StrataPostgres

    extension FuzzTarget {
        /// Reads each line of the input as a notification on a table's channel, as anyone who may connect can send one,
        /// and records it in a change feed with small limits; the first line is also read as an entry's version tag.
        ///
        /// A payload parses only in the triggers' shapes, and its canonical text parses back to it; recording never
        /// lets the feed keep more keys than its limits, counts exactly the payloads it ignores, and after a key's
        /// change (in the same epoch) vouches for the newest version heard of that key and for none older.
        static func postgresPayload(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            let text = String(decoding: bytes, as: UTF8.self)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            if let tag = PostgresEntryTag(lines.first.map(String.init)) {
                try expect(PostgresEntryTag(tag.description) == tag, "the tag \(tag) does not parse back", input: bytes)
            }
            let feed = PostgresChangeFeed(
                configuration: PostgresChangeFeedConfiguration(trackedKeyLimit: 6, pendingKeyLimit: 4),
                deadline: PostgresDeadline(.seconds(1)),
                maximumKeySize: 16
            )
            feed.beginEpoch()
            // The newest version heard of each key in the feed's epoch: the one the feed vouches for, and none older.
            var newest: [String: Int64] = [:]
            for line in lines {
                let payload = String(line)
                let parsed = PostgresFeedPayload(payload)
                try checkShape(of: payload, parsed: parsed, input: bytes)
                let (epoch, ignored) = (feed.currentEpoch, feed.ignoredNotificationCount)
                feed.record(payload)
                let isIgnored: Bool
                switch parsed {
                case nil: isIgnored = true
                case .change(let key, _, _): isIgnored = key.utf8.count > feed.maximumKeySize
                case .everyKey, .heartbeat: isIgnored = false
                }
                try expect(
                    feed.ignoredNotificationCount == ignored + (isIgnored ? 1 : 0),
                    "\(payload.debugDescription) ignored \(feed.ignoredNotificationCount - ignored) times",
                    input: bytes
                )
                try expect(feed.pendingKeyCount <= 4, "\(feed.pendingKeyCount) keys pending, over 4", input: bytes)
                guard let now = feed.currentEpoch, now == epoch else {
                    newest = [:]
                    continue
                }
                guard case .change(let key, let version, _) = parsed, !isIgnored else { continue }
                let latest = max(version, newest[key] ?? version)
                newest[key] = latest
                // The largest version is never vouched for (the triggers no longer raise it: a read of it cannot be
                // told from one before a later write); every other newest one is.
                try expect(
                    feed.vouches(forKey: key, tag: PostgresEntryTag(epoch: now, version: latest)) == (latest != .max),
                    "the newest version \(latest) of \(key.debugDescription) heard is "
                        + (latest == .max ? "vouched for" : "not vouched for"),
                    input: bytes
                )
                if latest > .min {
                    try expect(
                        !feed.vouches(forKey: key, tag: PostgresEntryTag(epoch: now, version: latest - 1)),
                        "a version of \(key.debugDescription) older than \(latest), heard, is vouched for",
                        input: bytes
                    )
                }
            }
        }

        /// Checks a parse against the triggers' grammar, read byte by byte here: `h:<digits>` (a heartbeat's token,
        /// at most `UInt64.max`), `<digits>:a:` (every key), `<digits>:p:<key>` or `<digits>:d:<key>` (one key, not
        /// empty; the version at most `Int64.max`); nothing else parses, and each canonical text parses back.
        private static func checkShape(
            of payload: String,
            parsed: PostgresFeedPayload?,
            input: UnsafeRawBufferPointer
        ) throws(FuzzFailure) {
            let utf8 = Array(payload.utf8)
            let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
            let expected: PostgresFeedPayload?
            if utf8.starts(with: Array("h:".utf8)) {
                let digits = utf8.dropFirst(2)
                expected =
                    !digits.isEmpty && digits.allSatisfy(isDigit)
                    ? UInt64(String(decoding: digits, as: UTF8.self)).map { .heartbeat(token: $0) } : nil
            } else if let first = utf8.firstIndex(of: UInt8(ascii: ":")), first > 0,
                utf8[..<first].allSatisfy(isDigit),
                let version = Int64(String(decoding: utf8[..<first], as: UTF8.self)),
                utf8.count >= first + 3, utf8[first + 2] == UInt8(ascii: ":")
            {
                let key = String(decoding: utf8[(first + 3)...], as: UTF8.self)
                switch (utf8[first + 1], key.isEmpty) {
                case (UInt8(ascii: "a"), true): expected = .everyKey
                case (UInt8(ascii: "p"), false): expected = .change(key: key, version: version, isDelete: false)
                case (UInt8(ascii: "d"), false): expected = .change(key: key, version: version, isDelete: true)
                default: expected = nil
                }
            } else {
                expected = nil
            }
            try expect(
                parsed == expected,
                "\(payload.debugDescription) parsed as \(String(describing: parsed)), not \(String(describing: expected))",
                input: input
            )
            let canonical: String?
            switch parsed {
            case .change(let key, let version, let isDelete): canonical = "\(version):\(isDelete ? "d" : "p"):\(key)"
            case .everyKey: canonical = "0:a:"
            case .heartbeat(let token): canonical = PostgresFeedPayload.text(ofHeartbeat: token)
            case nil: canonical = nil
            }
            if let canonical {
                try expect(
                    PostgresFeedPayload(canonical) == parsed,
                    "\(canonical.debugDescription) does not parse back to \(String(describing: parsed))",
                    input: input
                )
            }
        }
    }
#endif
