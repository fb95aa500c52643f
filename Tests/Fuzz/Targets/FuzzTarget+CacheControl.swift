#if DEBUG
    import Foundation
    import StrataNetwork

    extension FuzzTarget {
        /// Parses the input as `Cache-Control` and `Age`: every delta-seconds is between zero and the RFC 9111 cap,
        /// and parsing is deterministic.
        static func cacheControl(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            let text = String(decoding: bytes, as: UTF8.self)
            let control = CacheControl(parsing: text)
            // The cap CacheControl documents (RFC 9111, section 1.2.2): 2³¹ seconds.
            let limit = Duration.seconds(1 << 31)
            for delta in [control.maxAge, control.sharedMaxAge, control.staleWhileRevalidate, control.staleIfError] {
                guard let delta else { continue }
                try expect((.zero...limit).contains(delta), "a delta-seconds of \(delta)", input: bytes)
            }
            try expect(CacheControl(parsing: text) == control, "two parses of one header differ", input: bytes)
            // Without quotes, every member the grammar gives (split at each comma byte, trimmed of spaces and tabs)
            // that names a flag sets it: no character after a comma, however it combines, hides the one before.
            if !text.utf8.contains(UInt8(ascii: "\"")) {
                let flags: [(String, Bool)] = [
                    ("no-store", control.noStore), ("no-cache", control.noCache), ("private", control.isPrivate),
                    ("must-revalidate", control.mustRevalidate), ("public", control.isPublic),
                ]
                for member in text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                    let name = String(decoding: member, as: UTF8.self).trimmingCharacters(in: [" ", "\t"])
                    for (flag, isSet) in flags where name.lowercased() == flag {
                        try expect(isSet, "the member \(flag) was not heard", input: bytes)
                    }
                }
            }
            let response = HTTPResponse(status: 200, headers: ["Cache-Control": text, "Age": text])
            if let age = response.age { try expect(age >= .zero, "a negative Age \(age)", input: bytes) }
            _ = response.freshnessLifetime(sharedCache: true)
            _ = response.freshnessLifetime(sharedCache: false)
            // The one freshness computation: every lifetime and age stays within the cap, whatever the headers.
            let received = Date(timeIntervalSince1970: 1_700_000_000)
            for policy in [HTTPFreshness.Policy.privateCache, .sharedCache, .init(usesHeuristics: true)] {
                let freshness = HTTPFreshness(
                    response: response,
                    requestTime: received,
                    responseTime: received,
                    policy: policy
                )
                for duration in [freshness.lifetime, freshness.remainingLifetime, freshness.initialAge] {
                    guard let duration else { continue }
                    try expect((.zero...limit).contains(duration), "a freshness of \(duration)", input: bytes)
                }
                _ = freshness.isFresh(at: received.addingTimeInterval(1))
                _ = freshness.staleIfErrorUntil
            }
        }
    }
#endif
