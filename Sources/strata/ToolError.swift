/// Why the tool stops: a usage error (exit code 2) or a failure (exit code 1).
enum ToolError: Error {
    /// The command line is wrong.
    case usage(String)
    /// The command could not do its work; `code` names why for `--json` (see ``code``).
    case failure(String, code: String)

    /// A failure with the code `failure` (no finer reason known).
    static func failure(_ message: String) -> ToolError { .failure(message, code: "failure") }

    /// The machine-readable reason: `usage`, `noSuchFolder`, `notAFolder`, `link`, `notAStore`,
    /// `unsupportedStore`, `inUse`, `wrongUser`, a `StrataError` code (`io`, `corrupt`, …) or `failure`.
    var code: String {
        switch self {
        case .usage: "usage"
        case .failure(_, let code): code
        }
    }

    /// The message, one line.
    var message: String {
        switch self {
        case .usage(let message), .failure(let message, _): message
        }
    }

    /// The exit code: 2 for a usage error, 1 for a failure.
    var status: Int32 {
        switch self {
        case .usage: 2
        case .failure: 1
        }
    }
}
