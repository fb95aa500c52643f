import Foundation

/// The directives of a `Cache-Control` response header (RFC 9111, section 5.2.2; RFC 5861).
///
/// Parsing is lenient, as RFC 9111 asks of recipients: directive names are case-insensitive, spaces
/// and empty list members are skipped, arguments may be quoted (`max-age="60"`), commas inside quoted
/// strings do not split, and unknown directives are kept in ``extensions``. A delta-seconds argument
/// that is not a non-negative integer counts as `0`, so the response is treated as stale (section
/// 4.2.1); values beyond 2³¹ are capped at 2³¹ (section 1.2.2), however many digits they have. When a
/// directive repeats, the first occurrence wins. Parsing is total: no value traps, whatever its bytes.
///
/// ```swift
/// let control = CacheControl(parsing: "max-age=0, no-cache")
/// let maxAge = control.maxAge    // .zero
/// let noCache = control.noCache  // true
/// ```
public struct CacheControl: Hashable, Sendable {
    /// `max-age`: how long the response stays fresh.
    public var maxAge: Duration?
    /// `s-maxage`: how long the response stays fresh in a shared cache.
    public var sharedMaxAge: Duration?
    /// `no-store`: never store the response.
    public var noStore: Bool
    /// `no-cache`: store it, but revalidate before every reuse.
    public var noCache: Bool
    /// `must-revalidate`: never serve it stale.
    public var mustRevalidate: Bool
    /// `proxy-revalidate`: never serve it stale from a shared cache.
    public var proxyRevalidate: Bool
    /// `private`: only a private cache may store it.
    public var isPrivate: Bool
    /// `public`: any cache may store it.
    public var isPublic: Bool
    /// `immutable`: the response will not change while fresh.
    public var immutable: Bool
    /// `no-transform`: intermediaries must not change the content.
    public var noTransform: Bool
    /// `stale-while-revalidate` (RFC 5861): how long past freshness it may be served while revalidating.
    public var staleWhileRevalidate: Duration?
    /// `stale-if-error` (RFC 5861): how long past freshness it may be served when revalidation fails.
    public var staleIfError: Duration?
    /// Directives this type does not model, by lower-cased name, with their argument if any.
    public var extensions: [String: String?]

    /// Creates directives.
    ///
    /// - Parameters:
    ///   - maxAge: `max-age`.
    ///   - sharedMaxAge: `s-maxage`.
    ///   - noStore: `no-store`.
    ///   - noCache: `no-cache`.
    ///   - mustRevalidate: `must-revalidate`.
    ///   - isPrivate: `private`.
    ///   - isPublic: `public`.
    ///   - staleWhileRevalidate: `stale-while-revalidate`.
    ///   - staleIfError: `stale-if-error`.
    public init(
        maxAge: Duration? = nil,
        sharedMaxAge: Duration? = nil,
        noStore: Bool = false,
        noCache: Bool = false,
        mustRevalidate: Bool = false,
        isPrivate: Bool = false,
        isPublic: Bool = false,
        staleWhileRevalidate: Duration? = nil,
        staleIfError: Duration? = nil
    ) {
        self.maxAge = maxAge
        self.sharedMaxAge = sharedMaxAge
        self.noStore = noStore
        self.noCache = noCache
        self.mustRevalidate = mustRevalidate
        self.proxyRevalidate = false
        self.isPrivate = isPrivate
        self.isPublic = isPublic
        self.immutable = false
        self.noTransform = false
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
        self.extensions = [:]
    }

    /// Parses a `Cache-Control` header value; several header lines may be joined with commas.
    ///
    /// - Parameter header: The header value.
    public init(parsing header: String) {
        self.init()
        var seen = Set<String>()
        for (name, argument) in Self.directives(in: header) where seen.insert(name).inserted {
            switch name {
            case "max-age": maxAge = Self.deltaSeconds(argument)
            case "s-maxage": sharedMaxAge = Self.deltaSeconds(argument)
            case "no-store": noStore = true
            // The qualified forms (`no-cache="Set-Cookie"`, `private="…"`) are taken as the unqualified
            // ones: stricter, never wrong for a cache that does not track single fields.
            case "no-cache": noCache = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "private": isPrivate = true
            case "public": isPublic = true
            case "immutable": immutable = true
            case "no-transform": noTransform = true
            case "stale-while-revalidate": staleWhileRevalidate = Self.deltaSeconds(argument)
            case "stale-if-error": staleIfError = Self.deltaSeconds(argument)
            default: extensions[name] = argument
            }
        }
    }

    /// A delta-seconds argument: `0` when it is missing or not a non-negative integer, saturated at 2³¹.
    private static func deltaSeconds(_ argument: String?) -> Duration {
        .seconds(argument.flatMap(DeltaSeconds.parse) ?? 0)
    }

    /// Splits a header into lower-cased directive names and unquoted arguments.
    private static func directives(in header: String) -> [(String, String?)] {
        var result: [(String, String?)] = []
        for member in HTTPList.members(of: header) {
            let trimmed = member.trimmingOptionalWhitespace()
            guard !trimmed.isEmpty else { continue }
            guard let equals = trimmed.utf8.firstIndex(of: UInt8(ascii: "=")) else {
                result.append((trimmed.lowercased(), nil))
                continue
            }
            let name = trimmed[..<equals].trimmingOptionalWhitespace().lowercased()
            guard !name.isEmpty else { continue }
            var argument = trimmed[trimmed.utf8.index(after: equals)...].trimmingOptionalWhitespace()
            let quote = UInt8(ascii: "\"")
            if argument.utf8.count >= 2, argument.utf8.first == quote, argument.utf8.last == quote {
                let inner = argument.utf8.dropFirst().dropLast()
                argument = String(Substring(inner)).replacingOccurrences(of: "\\", with: "")
            }
            result.append((name, argument))
        }
        return result
    }
}
