/// An entry's tags as the persistent stores keep them: one text, the tags joined with newlines (no tag holds one:
/// `StrataError.checkTags`).
package enum TagList {
    /// The tags joined with `\n`.
    package static func joined(_ tags: some Sequence<String>) -> String { tags.joined(separator: "\n") }

    /// The tags of `text`, split at each `\n` byte.
    ///
    /// Split by bytes, not by `Character`: a tag that ends in `\r` makes the newline after it one `Character` with it
    /// (`"\r\n"`), and a split by `Character` would read two tags back as one.
    package static func split(_ text: String) -> [String] {
        text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(Substring($0)) }
    }
}
