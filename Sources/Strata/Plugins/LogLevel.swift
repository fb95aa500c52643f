/// The importance of a ``LogRecord``; the names and raw values are swift-log's `Logger.Level`.
public enum LogLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Every step, for tracing a call: the start of each call.
    case trace
    /// Details for debugging: each successful call and each miss.
    case debug
    /// Informational messages.
    case info
    /// Normal but significant conditions.
    case notice
    /// Something went wrong and may need attention.
    case warning
    /// A call failed.
    case error
    /// The program can hardly go on.
    case critical

    private var rank: Int {
        switch self {
        case .trace: 0
        case .debug: 1
        case .info: 2
        case .notice: 3
        case .warning: 4
        case .error: 5
        case .critical: 6
        }
    }

    /// Whether `lhs` is less important than `rhs`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
