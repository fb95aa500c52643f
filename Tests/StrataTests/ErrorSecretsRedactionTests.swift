import Foundation
import Testing

@testable import Strata

/// A cause that took text from a source's answer, as an HTTP failure takes the body's first bytes.
private struct AnsweredFailure: ErrorSummarizing {
    var body: String
    var errorSummary: String { "HTTP 500" }
    var answerExcerpt: String? { body }
}

/// The description of an error kept beyond the call keeps its code and message but no URL's user, password, query or
/// fragment, and no text of the source's answer.
struct ErrorSecretsRedactionTests {
    @Test func urlsInTextLoseTheirUserQueryAndFragment() {
        let text =
            "GET https://ann:pw@api.example:8443/v1/notes/a?access_token=t0k#part: failed; see http://x/y?z, 'ftp://u@h/p'"
        #expect(
            text.withoutURLSecrets == "GET https://api.example:8443/v1/notes/a: failed; see http://x/y, 'ftp://h/p'"
        )
        #expect("no URL here: a?b=c".withoutURLSecrets == "no URL here: a?b=c")
    }

    @Test func theDescriptionKeptWithholdsTheAnswerAndTheQueryButKeepsTheMessage() {
        let body = "{\"secret\":\"body-marker\"}\nsecond line"
        let error = StrataError(
            .unexpectedResponse,
            "HTTP 500 for GET https://api.example/notes/a?access_token=t0k: \(body)",
            underlying: AnsweredFailure(body: body)
        )

        #expect(
            error.descriptionWithoutSecrets
                == "StrataError.unexpectedResponse: HTTP 500 for GET https://api.example/notes/a: (answer withheld) (HTTP 500)"
        )
        #expect(error.description.contains("body-marker"))
        #expect(StrataError.describingWithoutSecrets(error) == error.descriptionWithoutSecrets)
        #expect(
            StrataError.describingWithoutSecrets(
                URLError(
                    .timedOut,
                    userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "https://h/p?token=t0k") as Any]
                )
            )
            .contains("t0k") == false
        )
    }
}
