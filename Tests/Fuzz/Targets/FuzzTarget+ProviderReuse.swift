#if DEBUG
    import Foundation
    import StrataNetwork
    @testable import StrataCache

    extension FuzzTarget {
        /// Reads the input as a `FileCacheProvider` entry's attributes: a rule read from any bytes re-encodes into
        /// attributes that read as the same rule, and deciding whether a request may reuse the copy answers without
        /// trapping.
        static func providerReuse(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            let rule = FileCacheProvider.Reuse(attributes: Data(bytes))
            try expect(
                FileCacheProvider.Reuse(attributes: rule.attributes) == rule,
                "the rule \(rule) does not read back from its own attributes",
                input: bytes
            )
            guard let url = URL(string: "https://example.com/doc") else { return }
            var request = HTTPRequest(.get, url: url)
            _ = rule.mustRevalidate(for: request)
            request.headers["Accept-Encoding"] = "gzip"
            _ = rule.mustRevalidate(for: request)
            _ = rule.isVariant
        }
    }
#endif
