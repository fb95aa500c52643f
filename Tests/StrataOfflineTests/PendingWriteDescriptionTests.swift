import Strata
import Testing

@testable import StrataOffline

/// The error a pending write keeps in its outbox file is cut at 512 Unicode scalars, whatever its `Character`s: a
/// server's message of a letter and 100,000 combining marks is one `Character`, which a cut by `Character` kept whole
/// in the file, at every failed attempt.
struct PendingWriteDescriptionTests {
    @Test func theKeptErrorOfOneHugeCharacterIsCut() {
        let error = StrataError(.unexpectedResponse, "a" + String(repeating: "\u{301}", count: 100_000))

        let kept = PendingWrite.describe(error)

        #expect(kept.unicodeScalars.count == 512)
        #expect(kept.hasPrefix(String(describing: StrataError(.unexpectedResponse, "a")).dropLast()))
    }
}
