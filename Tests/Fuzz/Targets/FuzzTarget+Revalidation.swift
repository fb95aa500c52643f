#if DEBUG
    import Foundation
    @testable import StrataNetwork

    extension FuzzTarget {
        /// Reads the input as what a revalidation reads from servers: its lines are a stored `ETag`, a `304`'s
        /// `ETag`, a `Last-Modified`, a `Vary`, then the request's fields (`name: value`).
        ///
        /// Entity tags: the weak comparison is reflexive on a valid tag and symmetric on any two values; a strong tag is
        /// a valid one; the conditions sent back are fields that fit on one line, with an `If-None-Match` only for a
        /// valid tag; a `304` renews the stored validators only with a tag that matches the stored one.
        /// `Vary`: at most ``HTTPResponse/maximumVariedFields`` fields, lowercased, never `*`; a request matches the
        /// fields it sent itself; a credential field's values are kept as one digest, never as sent; the digest of a
        /// request's varied fields is the digest of the fields kept.
        static func revalidation(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            let text = String(decoding: bytes, as: UTF8.self)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(32).map(String.init)
            let line = { (index: Int) in index < lines.count ? lines[index] : "" }
            try entityTags(stored: line(0), answered: line(1), lastModified: line(2), input: bytes)
            guard let url = URL(string: "https://example.com/doc") else { return }
            var request = HTTPRequest(.get, url: url)
            for field in lines.dropFirst(4) {
                guard let colon = field.firstIndex(of: ":") else { continue }
                request.headers.add(String(field[field.index(after: colon)...]), for: String(field[..<colon]))
            }
            try variedFields(vary: line(3), request: request, input: bytes)
        }

        private static func entityTags(
            stored: String,
            answered: String,
            lastModified: String,
            input bytes: UnsafeRawBufferPointer
        ) throws(FuzzFailure) {
            for tag in [stored, answered] where ConditionalHeaders.isValidEntityTag(tag) {
                try expect(
                    ConditionalHeaders.weakMatch(tag, tag),
                    "the valid tag \(tag) does not match itself",
                    input: bytes
                )
            }
            for tag in [stored, answered] where ConditionalHeaders.isStrongEntityTag(tag) {
                try expect(ConditionalHeaders.isValidEntityTag(tag), "the strong tag \(tag) is not valid", input: bytes)
            }
            try expect(
                ConditionalHeaders.weakMatch(stored, answered) == ConditionalHeaders.weakMatch(answered, stored),
                "the weak comparison is not symmetric",
                input: bytes
            )
            let storedResponse = HTTPResponse(status: 200, headers: ["ETag": stored, "Last-Modified": lastModified])
            let conditions = ConditionalHeaders(response: storedResponse)
            for field in conditions.headers {
                try expect(
                    HTTPSyntax.isFieldValue(field.value),
                    "the condition \(field.name) would not be one line on the wire",
                    input: bytes
                )
            }
            if let sent = conditions.headers["If-None-Match"] {
                try expect(ConditionalHeaders.isValidEntityTag(sent), "If-None-Match \(sent) is no tag", input: bytes)
            }
            let notModified = HTTPResponse(status: 304, headers: ["ETag": answered, "Last-Modified": lastModified])
            let renewed = conditions.renewed(by: notModified)
            guard let renewedTag = renewed.eTag, renewedTag != conditions.eTag else { return }
            try expect(
                conditions.eTag.map { ConditionalHeaders.weakMatch($0, renewedTag) } == true,
                "a 304 tagged \(renewedTag) renewed validators it does not match",
                input: bytes
            )
        }

        private static func variedFields(
            vary: String,
            request: HTTPRequest,
            input bytes: UnsafeRawBufferPointer
        ) throws(FuzzFailure) {
            let response = HTTPResponse(status: 200, headers: ["Vary": vary])
            guard let fields = response.variedFields(of: request) else {
                let named = Set(
                    HTTPList.plainMembers(of: vary, omittingEmpty: true).map { $0.lowercased() }.filter { $0 != "*" }
                )
                try expect(
                    named.count > HTTPResponse.maximumVariedFields,
                    "a Vary of \(named.count) fields was refused",
                    input: bytes
                )
                return
            }
            try expect(response.variedFields(of: request) == fields, "two reads of one Vary differ", input: bytes)
            try expect(fields.count <= HTTPResponse.maximumVariedFields, "\(fields.count) fields kept", input: bytes)
            for name in fields.keys {
                try expect(name == name.lowercased() && name != "*", "the kept name \(name)", input: bytes)
            }
            try expect(request.matches(variedFields: fields), "a request does not match its own fields", input: bytes)
            for (name, values) in fields where RedirectRule.isCredentialField(name) && !values.isEmpty {
                try expect(
                    values.count == 1 && values[0].hasPrefix("sha256:") && values[0].utf8.count == 71,
                    "the credential field \(name) is kept as sent",
                    input: bytes
                )
            }
            try expect(
                request.variedFieldsDigest(of: Array(fields.keys)) == HTTPRequest.digest(ofVariedFields: fields),
                "the request's digest differs from the digest of its kept fields",
                input: bytes
            )
        }
    }
#endif
