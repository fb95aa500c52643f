import Foundation
import Strata

extension HTTPRequest {
    /// Checks that nothing in the request can add or split a line on the wire, nor frame its body otherwise than the
    /// transport does: the method and every header name are RFC 9110 tokens, no header value holds a control
    /// character other than a tab, no `Transfer-Encoding` is given (the transport frames the body), and a
    /// `Content-Length` given is the body's length (a shorter one would send the rest of the body as another
    /// request on a reused connection; a longer one would leave the server waiting).
    ///
    /// ``HTTPClient`` calls it before handing a request to its transport, and ``urlRequest()`` before
    /// building one, so an invalid request is never sent — a carriage return in a `CacheProvider`'s header
    /// name included. A transport of your own that does not go through ``HTTPClient`` should call it too.
    ///
    /// The URL must be an `http` or `https` URL with a host: any other (a `file:` URL, a relative one) is refused
    /// before a transport sees it, since a URL taken from a server's answer or a user's input must not make the
    /// client read a local file or speak another protocol. A user or password the URL carries must be UTF-8 once
    /// percent-decoded: Foundation reads another (`a%FFb`) as none, while libcurl sends it, so a shared cache would
    /// count the request as carrying no credentials.
    ///
    /// A ``timeout`` or ``totalTimeout`` given must be above zero: a zero (which some libraries read as "no
    /// timeout") or negative one would fail every request at once as a retryable timeout, retried for ever.
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` naming the method, the header (a value is never quoted,
    ///   as it may be a secret), the URL's scheme or credentials (never quoted either), or the timeout.
    public func validate() throws {
        _ = try validatedURL()
    }

    /// Checks the request as ``validate()`` does and returns its URL (``url()``), built once for both.
    package func validatedURL() throws -> URL {
        let url = try validURL()
        guard HTTPSyntax.isToken(method.rawValue) else {
            throw StrataError(.invalidArgument, "The method \(HTTPSyntax.quoted(method.rawValue)) is not a token")
        }
        for field in headers.fields { try HTTPSyntax.validateField(field.name, field.value) }
        try validateFraming()
        try Self.validate(timeout, "timeout")
        try Self.validate(totalTimeout, "totalTimeout")
        return url
    }

    /// Refuses a timeout that is not above zero.
    private static func validate(_ timeout: Duration?, _ name: String) throws {
        guard let timeout, timeout <= .zero else { return }
        throw StrataError(
            .invalidArgument,
            "The \(name) must be above zero (the request's, or its client's when it sets none); got \(timeout): "
                + "there is no \"no timeout\", give a long one"
        )
    }

    /// The URL, refused when it is not `http` or `https` with a host, or carries a user or password that is not
    /// UTF-8 once decoded.
    private func validURL() throws -> URL {
        let url = try url()
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw StrataError(
                .invalidArgument,
                "The URL \(url.describedForErrors) is not an http or https URL: only those are requested"
            )
        }
        guard let host = url.host, !host.isEmpty else {
            throw StrataError(.invalidArgument, "The URL \(url.describedForErrors) has no host")
        }
        _ = try url.credentials()
        return url
    }

    /// Refuses the framing fields a caller may not set: `Transfer-Encoding`, and a `Content-Length` other than the
    /// body's length (given once).
    private func validateFraming() throws {
        if headers["Transfer-Encoding"] != nil {
            throw StrataError(
                .invalidArgument,
                "The header Transfer-Encoding frames the body, which the transport does: remove it"
            )
        }
        let lengths = headers.values(for: "Content-Length")
        guard !lengths.isEmpty else { return }
        let length = body?.count ?? 0
        guard lengths.count == 1, lengths[0].trimmingOptionalWhitespace() == String(length) else {
            throw StrataError(
                .invalidArgument,
                "The header Content-Length must be the body's length, \(length) bytes, given once (or left out: the "
                    + "transport sets it)"
            )
        }
    }
}

/// The pieces of RFC 9110's grammar that keep a request's framing intact.
package enum HTTPSyntax {
    /// Refuses a header field that would not be one line on the wire: a name that is not a token, a value with a
    /// control character (a CR or LF would add a line, or end the header block).
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument``.
    package static func validateField(_ name: String, _ value: String) throws {
        guard isToken(name) else {
            throw StrataError(
                .invalidArgument,
                "The header name \(quoted(name)) is not a token (RFC 9110, section 5.1)"
            )
        }
        if let offset = controlCharacterOffset(in: value) {
            throw StrataError(
                .invalidArgument,
                "The value of the header \(name) holds a control character at byte \(offset)"
            )
        }
    }

    /// Whether `text` is a non-empty token: ASCII letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isToken(_ text: String) -> Bool {
        !text.utf8.isEmpty && text.utf8.allSatisfy(isTokenCharacter)
    }

    /// The byte offset of the first control character in a field value (anything below a space but a tab,
    /// and DEL), or `nil` when there is none. Bytes of 0x80 and above (`obs-text`, UTF-8) are allowed.
    static func controlCharacterOffset(in value: String) -> Int? {
        value.utf8.enumerated().first { _, byte in (byte < 0x20 && byte != 0x09) || byte == 0x7F }?.offset
    }

    /// Whether a field value can be sent as it is.
    package static func isFieldValue(_ value: String) -> Bool {
        controlCharacterOffset(in: value) == nil
    }

    /// `text` quoted for a message, control characters escaped, cut to 64 Unicode scalars.
    static func quoted(_ text: String) -> String {
        let (shown, isCut) = text.prefixForMessage(64)
        return String(reflecting: isCut ? shown + "…" : shown)
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
