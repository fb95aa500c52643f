/// Why the tool stops: a usage error (exit code 2) or a failure (exit code 1).
enum ToolError: Error {
    /// The command line is wrong.
    case usage(String)
    /// The command could not do its work.
    case failure(String)
}
