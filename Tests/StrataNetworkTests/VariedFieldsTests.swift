import Foundation
import StrataNetwork
import Testing

/// The request values a cache keeps for a response's `Vary`, and which later requests they match (RFC 9111,
/// section 4.1).
struct VariedFieldsTests {
    private func response(vary: [String]) -> HTTPResponse {
        HTTPResponse(status: 200, headers: HTTPHeaders(vary.map { HTTPHeaders.Field(name: "Vary", value: $0) }))
    }

    private func request(_ fields: [(String, String)]) throws -> HTTPRequest {
        var request = HTTPRequest(url: try #require(URL(string: "https://api.example/greeting")))
        for (name, value) in fields { request.headers.add(value, for: name) }
        return request
    }

    @Test func theNominatedFieldsAreKeptNormalizedAndMatchedByValue() throws {
        let sent = try request([("Accept-Language", "en, fr"), ("X-Other", "1")])
        let varied = try #require(
            response(vary: ["accept-language", "Accept-Language , X-Absent"]).variedFields(of: sent)
        )

        #expect(varied == ["accept-language": ["en", "fr"], "x-absent": []])
        #expect(try request([("accept-language", "en"), ("Accept-Language", "fr")]).matches(variedFields: varied))
        #expect(try !request([("Accept-Language", "fr, en")]).matches(variedFields: varied))
        #expect(try !request([("Accept-Language", "en, fr"), ("X-Absent", "")]).matches(variedFields: varied))
    }

    /// `Vary` is split by bytes: a mark after a comma made `accept-language,\u{301}x` one field no request sends, so
    /// a response for one language answered requests in any other.
    @Test func aMarkAfterACommaInVaryHidesNoFieldName() throws {
        let sent = try request([("Accept-Language", "en")])
        let varied = try #require(response(vary: ["accept-language,\u{301}x"]).variedFields(of: sent))

        #expect(varied == ["accept-language": ["en"], "\u{301}x": []])
        #expect(try !request([("Accept-Language", "fr")]).matches(variedFields: varied))
        func isStorable(vary: String) -> Bool {
            HTTPFreshness(response: response(vary: [vary]), requestTime: Date(), responseTime: Date()).isStorable
        }
        #expect(isStorable(vary: "accept-language,\u{301}*"))
        #expect(!isStorable(vary: "accept-language,*"))
        #expect(!isStorable(vary: "accept-language,\t* "))
    }

    @Test func aResponseThatNominatesTooManyFieldsKeepsNone() throws {
        let names = (0...HTTPResponse.maximumVariedFields).map { "X-Field-\($0)" }
        #expect(response(vary: [names.joined(separator: ", ")]).variedFields(of: try request([])) == nil)
        #expect(response(vary: ["*"]).variedFields(of: try request([])) == [:])
    }
}
