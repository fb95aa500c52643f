extension StrataError {
    /// Refuses tags a persistent store cannot keep: an empty tag, or one that holds a newline (the file and JSON
    /// stores join an entry's tags with newlines). A newline is any `\n` byte, also the one of a `"\r\n"`, which
    /// Swift compares as one `Character` other than `"\n"`.
    ///
    /// - Parameter tags: The tags of an entry being written.
    /// - Throws: ``Code/invalidArgument`` naming the first such tag.
    public static func checkTags(_ tags: Set<String>) throws {
        for tag in tags where tag.isEmpty || tag.utf8.contains(UInt8(ascii: "\n")) {
            throw StrataError(.invalidArgument, "A tag must not be empty or hold a newline: \(String(reflecting: tag))")
        }
    }
}
