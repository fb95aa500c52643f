import Foundation
import StrataNetwork

extension FileCacheProvider {
    /// When a stored download may be handed out without asking the server (under
    /// ``CachePolicy/bypassServerCallOnFoundItem``), as the entry's attributes record it.
    ///
    /// A response that said `no-cache` or `must-revalidate` is revalidated before each reuse (the provider keeps no
    /// lifetime that would tell it fresh). One that named request fields in `Vary` answers only a request that sends
    /// the values its request sent in them (RFC 9111, section 4.1): the provider keeps their digest when it knows the
    /// request (a download through ``DownloadService``), and revalidates before each reuse when it does not (a file
    /// stored with ``store(objectAt:key:headers:)``), nor when the request lacked a field a transport may add on its own
    /// (``fieldsTransportsAdd``: what went is not known).
    enum Reuse: Equatable {
        /// Reused while nothing else forbids it.
        case free
        /// Revalidated before each reuse.
        case revalidates
        /// Varied by request fields it does not know: revalidated before each reuse, and by its `ETag` alone.
        case unknownVariant
        /// Varied by request fields, whose values' digest it keeps: reused by a request that sends the same, unless
        /// it must also be revalidated.
        case variant(BlobVariant, revalidates: Bool)

        // Computed, not stored: a `Data` held in a static is reported as leaked by LeakSanitizer (the fuzz run).

        /// The attributes of ``revalidates``.
        private static var revalidatesMark: Data { Data("strata-revalidates".utf8) }
        /// The attributes of ``unknownVariant``.
        private static var unknownVariantMark: Data { Data("strata-revalidates-variant".utf8) }
        /// The first bytes of a ``variant(_:revalidates:)``'s attributes; a flag byte (1: revalidates) and the
        /// variant's record follow.
        private static var variantMark: Data { Data("strata-variant:".utf8) }

        /// The fields a transport may add to a request that lacks them, with values the request as sent does not show:
        /// credentials from its configuration, cookies from its storage, its user agent and languages. A response
        /// varied by one the request lacked is asked about each time: the next request may go with other values (a
        /// transport made for another user). `Accept-Encoding` is not among them: each transport hands out the body as
        /// the request that lacks it asks for it (URLSessionTransport inflates what its own `Accept-Encoding` brought).
        static let fieldsTransportsAdd: Set<String> = Set(RedirectRule.credentialFields.map { $0.lowercased() })
            .union(["user-agent", "accept-language"])

        /// The rule for a response with `freshness` and `Vary` field, to `request` when it is known.
        init(_ freshness: HTTPFreshness, response: HTTPResponse, request: HTTPRequest?) {
            let revalidates = freshness.requiresRevalidation || freshness.forbidsServingStale
            guard response.headers["Vary"] != nil else {
                self = revalidates ? .revalidates : .free
                return
            }
            // A request not known, or a response that names more fields than a cache keeps, is asked about each time.
            guard let request, let variant = BlobVariant(of: response, answering: request),
                !variant.names.contains(where: { Self.fieldsTransportsAdd.contains($0) && request.headers[$0] == nil })
            else {
                self = .unknownVariant
                return
            }
            self = .variant(variant, revalidates: revalidates)
        }

        /// The rule the attributes record; ``free`` for none, or for attributes the provider did not write.
        init(attributes: Data?) {
            guard let attributes else {
                self = .free
                return
            }
            if attributes == Self.revalidatesMark {
                self = .revalidates
            } else if attributes == Self.unknownVariantMark {
                self = .unknownVariant
            } else if attributes.starts(with: Self.variantMark) {
                // A record this version cannot read (damaged, or of a later one) is asked about each time.
                guard let flag = attributes.dropFirst(Self.variantMark.count).first, flag <= 1,
                    let variant = BlobVariant.decode(attributes.dropFirst(Self.variantMark.count + 1))
                else {
                    self = .unknownVariant
                    return
                }
                self = .variant(variant, revalidates: flag == 1)
            } else {
                self = .free
            }
        }

        /// The attributes that record the rule.
        var attributes: Data? {
            switch self {
            case .free: nil
            case .revalidates: Self.revalidatesMark
            case .unknownVariant: Self.unknownVariantMark
            case .variant(let variant, let revalidates):
                Self.variantMark + [revalidates ? 1 : 0] + variant.encoded()
            }
        }

        /// Whether the response varied by request fields: its `Last-Modified` is not sent back (a date is often the
        /// same for every variant, so a 304 to `If-Modified-Since` could be about another one).
        var isVariant: Bool {
            switch self {
            case .unknownVariant, .variant: true
            case .free, .revalidates: false
            }
        }

        /// Whether the copy must be revalidated before it answers `request` (as it would be sent).
        func mustRevalidate(for request: HTTPRequest) -> Bool {
            switch self {
            case .free: false
            case .revalidates, .unknownVariant: true
            case .variant(let variant, let revalidates): revalidates || !variant.matches(request)
            }
        }

        /// The rule after a `304` whose `Cache-Control` replaces the stored directives (RFC 9111, section 4.3.4): its
        /// `freshness` decides whether to revalidate; the variant stays (a 304 that names fields in `Vary` where the
        /// stored response named none makes it one whose fields are not known).
        func renewed(by freshness: HTTPFreshness, response: HTTPResponse) -> Reuse {
            let revalidates = freshness.requiresRevalidation || freshness.forbidsServingStale
            switch self {
            case .variant(let variant, _): return .variant(variant, revalidates: revalidates)
            case .unknownVariant: return .unknownVariant
            case .free, .revalidates:
                if response.headers["Vary"] != nil { return .unknownVariant }
                return revalidates ? .revalidates : .free
            }
        }
    }
}
