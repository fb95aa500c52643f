import Foundation
internal import StrataSupport

extension HTTPResponse {
    /// The most request fields a response's `Vary` may nominate for a cache to keep their values.
    package static let maximumVariedFields = 16

    /// The values the request sent in the fields this response's `Vary` nominates (RFC 9111, section 4.1), by
    /// lowercased name: each field's values split at commas and trimmed, none for a field the request lacked — a
    /// credential field's (``RedirectRule/credentialFields``) as one digest of them, so that a token never reaches a
    /// cache's folder (two requests match in it exactly when their values do);
    /// empty when `Vary` nominates none (`*`, which no request matches, makes a response not storable:
    /// ``HTTPFreshness/isStorable``); `nil` when it nominates more than ``maximumVariedFields``.
    ///
    /// - Parameter request: The request as sent.
    package func variedFields(of request: HTTPRequest) -> [String: [String]]? {
        var fields: [String: [String]] = [:]
        for line in headers.values(for: "Vary") {
            for item in HTTPList.plainMembers(of: line, omittingEmpty: true) {
                let name = item.lowercased()
                guard name != "*", fields[name] == nil else { continue }
                guard fields.count < Self.maximumVariedFields else { return nil }
                fields[name] = HTTPRequest.keptValues(of: name, in: request.headers)
            }
        }
        return fields
    }
}

extension HTTPRequest {
    /// Whether this request sends the values a stored response varied on (``HTTPResponse/variedFields(of:)``), so
    /// that the stored response may answer it (RFC 9111, section 4.1).
    ///
    /// - Parameter variedFields: The stored response's varied fields.
    package func matches(variedFields: [String: [String]]) -> Bool {
        variedFields.allSatisfy { name, values in Self.keptValues(of: name, in: headers) == values }
    }

    /// One digest of the values this request sends in the fields `names` (lowercased) as a cache keeps them
    /// (``keptValues(of:in:)``): ``digest(ofVariedFields:)`` of them, equal for two requests exactly when they send
    /// the same values there. What a cache that keeps a digest of a stored response's varied fields in place of their
    /// values matches a later request by.
    ///
    /// - Parameter names: The fields a stored response's `Vary` nominated (``HTTPResponse/variedFields(of:)``).
    package func variedFieldsDigest(of names: [String]) -> String {
        Self.digest(ofVariedFields: names.reduce(into: [:]) { $0[$1] = Self.keptValues(of: $1, in: headers) })
    }

    /// One SHA-256 digest of varied fields (``HTTPResponse/variedFields(of:)``), `sha256:` and 64 hexadecimal digits:
    /// each name and value counted by its length, so that two sets of fields have one digest only when they are
    /// equal.
    ///
    /// - Parameter fields: The values by lowercased name.
    package static func digest(ofVariedFields fields: [String: [String]]) -> String {
        var text = ""
        for name in fields.keys.sorted() {
            let values = fields[name] ?? []
            text += "\(name.utf8.count):\(name)\(values.count):"
            for value in values { text += "\(value.utf8.count):\(value)" }
        }
        return "sha256:" + SHA256.hex(of: text, byteCount: 32)
    }

    /// The values of the fields named `name` (lowercased) as a cache keeps them: ``normalizedValues(of:in:)``, or for
    /// a credential field one SHA-256 digest of them (`sha256:` and 64 hexadecimal digits).
    static func keptValues(of name: String, in headers: HTTPHeaders) -> [String] {
        let values = normalizedValues(of: name, in: headers)
        guard !values.isEmpty, RedirectRule.isCredentialField(name) else { return values }
        return ["sha256:" + SHA256.hex(of: values.joined(separator: "\n"), byteCount: 32)]
    }

    /// The values of the fields named `name`, split at commas and trimmed of optional whitespace.
    static func normalizedValues(of name: String, in headers: HTTPHeaders) -> [String] {
        headers.values(for: name).flatMap { HTTPList.plainMembers(of: $0, omittingEmpty: false) }
    }
}
