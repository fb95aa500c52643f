/// How a query or a value shows in a log line: the one rule of the core's `LoggingPlugin` and of StrataLogging's
/// `LoggerPlugin`.
package enum LoggedText {
    /// The most Unicode scalars (characters, in most text) of a query or a value a line shows.
    package static let limit = 1_024

    /// `value`'s text as a line shows it: one line whatever it holds (``StrataError``'s rule for messages: no line
    /// break or control character a text log handler would print as it is), at most ``limit`` Unicode scalars (a
    /// letter and any number of combining marks is one `Character`), `…` after a cut.
    package static func of(_ value: Any) -> String {
        let (shown, isCut) = String(describing: value).prefixForMessage(limit)
        return StrataError.oneLine(shown) + (isCut ? "…" : "")
    }
}
