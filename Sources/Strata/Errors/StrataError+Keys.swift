extension StrataError {
    /// The most Unicode scalars (characters, in most text) of a key that an error message quotes; a longer key is cut
    /// and ends with `…`.
    public static let quotedKeyLimit = 200

    /// A key as every store's messages quote it: a Swift string literal (in double quotes, with quotes,
    /// backslashes, line breaks and control characters escaped, so the message stays on one line) of at most
    /// ``quotedKeyLimit`` Unicode scalars, the rest cut and marked with `…` (a letter followed by a hundred thousand
    /// combining marks is one `Character`, and is cut too).
    ///
    /// `"user/42"`, `"a\nb"`, `""`.
    ///
    /// - Parameter key: The key a query names.
    /// - Returns: The key, quoted.
    public static func quoted(key: String) -> String {
        let (shown, isCut) = key.prefixForMessage(quotedKeyLimit)
        return String(reflecting: shown) + (isCut ? "…" : "")
    }

    /// The *not found* error of a store that has no value for a key: `No value for key "user/42"`.
    ///
    /// - Parameters:
    ///   - key: The key that was looked up, quoted by ``quoted(key:)``.
    ///   - file: The source file creating the error; leave the default.
    ///   - line: The source line creating the error; leave the default.
    public static func notFound(key: String, file: String = #fileID, line: Int = #line) -> StrataError {
        noValue(forKey: key, file: file, line: line)
    }

    /// The error of a store asked to use an empty key: every store refuses one, since a value stored under `""`
    /// is almost always a key built from a missing field.
    public static func emptyKey(file: String = #fileID, line: Int = #line) -> StrataError {
        StrataError(
            .invalidArgument,
            "The key is empty; a store needs a non-empty key (check how the query builds it)",
            file: file,
            line: line
        )
    }

    /// The error of a store that found nothing for a key: ``emptyKey(file:line:)`` for an empty key (so a lookup
    /// that cannot succeed says why), ``notFound(key:file:line:)`` otherwise. A store calls it only on a miss, so a
    /// hit pays nothing.
    public static func miss(key: String, file: String = #fileID, line: Int = #line) -> StrataError {
        key.isEmpty ? emptyKey(file: file, line: line) : notFound(key: key, file: file, line: line)
    }

    /// Throws ``emptyKey(file:line:)`` when the key is empty.
    ///
    /// - Parameters:
    ///   - key: The key a query names.
    ///   - file: The source file creating the error; leave the default.
    ///   - line: The source line creating the error; leave the default.
    public static func checkKey(_ key: String, file: String = #fileID, line: Int = #line) throws(StrataError) {
        if key.isEmpty { throw emptyKey(file: file, line: line) }
    }
}
