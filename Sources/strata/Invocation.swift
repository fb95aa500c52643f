import Foundation

/// How the user ran the tool, for the commands the tool suggests: `strata` by default, `swift package strata`
/// when the command plugin runs it (the plugin says so in ``environmentVariable``).
enum Invocation {
    /// The variable that names the command the user typed to run the tool.
    static let environmentVariable = "STRATA_INVOCATION"

    /// The command the user typed to run the tool: the variable's value when it is one printable line, else
    /// `strata`.
    static let name: String = {
        guard let value = ProcessInfo.processInfo.environment[environmentVariable],
            !value.isEmpty, value.count <= 200,
            value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { return "strata" }
        return value
    }()
}
