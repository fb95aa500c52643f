extension StrataError {
    /// Refuses tags a persistent store cannot keep: an empty tag, or one that holds a newline (the file and JSON
    /// stores join an entry's tags with newlines).
    ///
    /// - Parameter tags: The tags of an entry being written.
    /// - Throws: ``Code/invalidArgument`` naming the first such tag.
    public static func checkTags(_ tags: Set<String>) throws {
        for tag in tags where tag.isEmpty || tag.contains("\n") {
            throw StrataError(.invalidArgument, "A tag must not be empty or hold a newline: \(String(reflecting: tag))")
        }
    }
}
