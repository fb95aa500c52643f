#if DEBUG
    import Foundation
    import StrataNetwork

    extension FuzzTarget {
        /// Dates from 1000-01-01 to 9999-12-31: the years IMF-fixdate writes with four digits, so the ones that
        /// must survive `format` then `parse`.
        private static let fourDigitYears: ClosedRange<TimeInterval> = -30_610_224_000...253_402_300_799

        /// A fixed "now", so that `Retry-After` dates give the same wait on every run.
        private static let now = Date(timeIntervalSince1970: 1_700_000_000)

        /// Parses the input as every date header; a parsed date has whole seconds and, in four-digit years,
        /// survives formatting.
        static func httpDate(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            let text = String(decoding: bytes, as: UTF8.self)
            let response = HTTPResponse(
                status: 503,
                headers: ["Date": text, "Expires": text, "Last-Modified": text, "Retry-After": text]
            )
            _ = response.freshnessLifetime()
            let freshness = HTTPFreshness(
                response: response,
                requestTime: now,
                responseTime: now,
                policy: .init(usesHeuristics: true)
            )
            _ = freshness.expiresAt
            _ = freshness.age(at: now)
            _ = response.lastModified
            if let wait = RetryAfter.parse(text, now: now) {
                try expect(wait >= .zero, "a negative Retry-After wait \(wait)", input: bytes)
            }
            guard let date = HTTPDate.parse(text) else { return }
            let seconds = date.timeIntervalSince1970
            try expect(
                seconds.rounded(.down) == seconds,
                "a date with a fraction of a second: \(seconds)",
                input: bytes
            )
            guard fourDigitYears.contains(seconds) else { return }
            let formatted = HTTPDate.format(date)
            try expect(
                HTTPDate.parse(formatted) == date,
                "\(seconds) formats as \"\(formatted)\", which does not parse back",
                input: bytes
            )
        }
    }
#endif
