import Foundation
import Testing

@testable import StrataNetwork

/// Whether a response came from the URL asked for (`HTTPFreshness.isSameTarget`): spellings of one target are one
/// (no response of the URL asked for is taken for a redirect's, which would revalidate it at every use), other paths,
/// queries, hosts, ports and schemes are not.
struct RedirectTargetTests {
    @Test(arguments: [
        ("http://example.com/a", "http://example.com/a"),
        ("http://Example.COM/a", "http://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a?b=1", "https://example.com/a?b=1"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com/a#top", "http://example.com/a"),
    ])
    func spellingsOfOneTargetAreOne(first: String, second: String) throws {
        let (a, b) = (try #require(URL(string: first)), try #require(URL(string: second)))
        #expect(HTTPFreshness.isSameTarget(a, b))
        #expect(HTTPFreshness.isSameTarget(b, a))
    }

    @Test(arguments: [
        ("http://example.com/a", "http://example.com/b"),
        ("http://example.com/a?b=1", "http://example.com/a?b=2"),
        ("http://example.com/a", "http://example.org/a"),
        ("http://example.com:8080/a", "http://example.com/a"),
        ("https://example.com/a", "http://example.com/a"),
    ])
    func otherTargetsAreNot(first: String, second: String) throws {
        let (a, b) = (try #require(URL(string: first)), try #require(URL(string: second)))
        #expect(!HTTPFreshness.isSameTarget(a, b))
    }
}
