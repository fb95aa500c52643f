#if DEBUG
    import Foundation
    @testable import StrataNetwork

    extension FuzzTarget {
        /// Reads the input as header fields joined as FoundationNetworking joins repeated ones (a line
        /// `name: value` each; a line without a colon is a `Cache-Control` value) and splits them back
        /// (`HTTPHeaders.splittingJoinedFields`): splitting loses no character but the commas it splits at and the
        /// whitespace around them, is deterministic, and gives `Cache-Control` the directives of the joined value.
        static func headerFields(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            let text = String(decoding: bytes, as: UTF8.self)
            var joined: [(name: String, value: String)] = []
            // Lines and names by bytes, as the transports read them: a mark after the `:` stays in the value.
            for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(64) {
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                    joined.append(("Cache-Control", String(Substring(line))))
                    continue
                }
                joined.append((String(Substring(line[..<colon])), String(Substring(line[line.index(after: colon)...]))))
            }
            let headers = HTTPHeaders.splittingJoinedFields(joined)
            try expect(
                HTTPHeaders.splittingJoinedFields(joined).dictionary == headers.dictionary,
                "two splits of one set of fields differ",
                input: bytes
            )
            for (name, value) in joined {
                let members = HTTPHeaders.splittingJoinedFields([(name, value)]).values(for: name)
                try expect(
                    Self.significant(members.joined()) == Self.significant(value),
                    "the split values of \(name) are not the field's",
                    input: bytes
                )
                guard name.lowercased() == "cache-control", members != [value] else { continue }
                try expect(
                    CacheControl(parsing: members.joined(separator: ", ")) == CacheControl(parsing: value),
                    "the split Cache-Control reads otherwise than the joined one",
                    input: bytes
                )
            }
        }

        /// The scalars of `value` that no split removes: all but commas and optional whitespace (scalars, not
        /// characters: joining two members may make one character of two, such as a flag of two regional indicators).
        private static func significant(_ value: String) -> [Unicode.Scalar] {
            value.unicodeScalars.filter { $0 != "," && $0 != " " && $0 != "\t" }
        }
    }
#endif
