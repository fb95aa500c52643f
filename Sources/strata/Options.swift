import StrataStorage

/// The parsed command line: `strata <command> [<folder>] [options]`.
struct Options {
    /// The environment variable that gives the most bytes of keys and metadata the tool takes into memory from a
    /// store (a size, as `--max-size` takes): the stores' own `maximumMetadataSize`, 256 MiB unless an app raised it.
    static let metadataLimitVariable = "STRATA_MAXIMUM_METADATA_SIZE"

    /// The subcommands.
    enum Command: String, CaseIterable {
        case inspect, verify, prune, clear, help
    }

    var command: Command = .help
    var folder: String?
    /// For `help <command>`.
    var topic: Command?
    var json = false
    var progress = false
    var limit: Int?
    var repair = false
    var maxSize: Int?
    var maxCount: Int?
    var maxAge: Double?
    var dryRun = false
    var yes = false
    /// The most bytes of keys and metadata the tool takes into memory from a store (``metadataLimitVariable``).
    var maximumMetadataSize = StoreLimits.defaultMaximumMetadataSize

    /// The options each command accepts, besides `--json` and `--help`. `--progress` is for the commands that walk
    /// the entries one by one: `clear` removes them without a count to report.
    private static let accepted: [Command: Set<String>] = [
        .inspect: ["--limit", "--max-age", "--progress"],
        .verify: ["--repair", "--progress"],
        .prune: ["--max-size", "--max-count", "--max-age", "--dry-run", "--progress"],
        .clear: ["--yes"],
        .help: ["--progress"],
    ]

    /// Parses the arguments after the executable's name, and ``metadataLimitVariable`` from `environment`.
    ///
    /// - Throws: ``ToolError/usage(_:)`` for anything it does not understand.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        var positional: [String] = []
        var seenHelp = false
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || !argument.hasPrefix("-") || argument == "-" {
                positional.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws -> String {
                if let inlineValue { return inlineValue }
                guard index < arguments.count else { throw ToolError.usage("\(name) needs a value") }
                defer { index += 1 }
                return arguments[index]
            }
            switch name {
            case "-h", "--help": seenHelp = true
            case "--json": json = true
            case "--progress": progress = true
            case "--repair": repair = true
            case "--dry-run", "-n": dryRun = true
            case "--yes", "-y": yes = true
            case "--limit": limit = try Self.count(try value(), for: name, minimum: 0)
            case "--max-count": maxCount = try Self.count(try value(), for: name, minimum: 0)
            case "--max-size": maxSize = try Self.size(try value(), for: name)
            case "--max-age":
                let text = try value()
                guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                    throw ToolError.usage("--max-age needs a number of seconds, not \"\(text)\"")
                }
                maxAge = seconds
            default: throw ToolError.usage("unknown option \(name)")
            }
            if inlineValue != nil, !["--limit", "--max-count", "--max-size", "--max-age"].contains(name) {
                throw ToolError.usage("\(name) takes no value")
            }
        }
        try assign(positional, help: seenHelp)
        // Read only for a command that opens a store: a bad value in the environment does not keep help from showing.
        if command != .help, let limit = environment[Self.metadataLimitVariable] {
            maximumMetadataSize = try Self.size(limit, for: Self.metadataLimitVariable)
            guard maximumMetadataSize >= 1 else {
                throw ToolError.usage("\(Self.metadataLimitVariable) needs a size of at least 1 byte, not \"\(limit)\"")
            }
        }
    }

    /// Whether `arguments` ask for JSON output (`--json` before any `--`), told even when they do not parse.
    static func asksForJSON(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }

    private mutating func assign(_ positional: [String], help: Bool) throws {
        guard let first = positional.first else {
            guard help else { throw ToolError.usage("a command is needed") }
            command = .help
            return
        }
        guard let command = Command(rawValue: first) else { throw ToolError.usage("unknown command \"\(first)\"") }
        self.command = command
        if command == .help || help {
            if command == .help, positional.count > 1 {
                guard let topic = Command(rawValue: positional[1]) else {
                    throw ToolError.usage("unknown command \"\(positional[1])\"")
                }
                self.topic = topic
            } else if command != .help {
                topic = command
            }
            self.command = .help
            guard positional.count <= 2 else { throw ToolError.usage("help takes at most one command") }
            // `strata help --repair` and `strata inspect --help --yes` are mistakes too: help must not
            // exit 0 on an option the command would refuse.
            try validateFlags(of: command)
            return
        }
        guard positional.count >= 2 else { throw ToolError.usage("\(command.rawValue) needs a store folder") }
        guard positional.count == 2 else {
            throw ToolError.usage("unexpected argument \"\(positional[2])\"")
        }
        // An empty argument names no folder (the tool took it for `/`).
        guard !positional[1].isEmpty else {
            throw ToolError.usage("\(command.rawValue) needs a store folder, not an empty argument")
        }
        folder = positional[1]
        try validateFlags(of: command)
    }

    /// Throws a usage error for an option that `command` does not take.
    private func validateFlags(of command: Command) throws {
        let used: [(String, Bool)] = [
            ("--limit", limit != nil), ("--max-age", maxAge != nil), ("--repair", repair),
            ("--max-size", maxSize != nil), ("--max-count", maxCount != nil), ("--dry-run", dryRun), ("--yes", yes),
            ("--progress", progress),
        ]
        let accepted = Self.accepted[command] ?? []
        for (name, isUsed) in used where isUsed && !accepted.contains(name) {
            throw ToolError.usage("\(command.rawValue) does not take \(name)")
        }
    }

    private static func count(_ text: String, for name: String, minimum: Int) throws -> Int {
        guard let value = Int(text), value >= minimum else {
            throw ToolError.usage("\(name) needs a whole number of at least \(minimum), not \"\(text)\"")
        }
        return value
    }

    /// Parses `1048576`, `512K`, `10MB`, `1.5G` (binary multiples: K = 1024): decimal digits, with a fraction if
    /// any, and a unit; not `0x10` nor `1e3`, which `Double` would take, nor a size that is less than a byte but for
    /// `0` itself (`0.5`, a limit of 0 bytes, would prune every entry).
    ///
    /// - Parameters:
    ///   - text: The size.
    ///   - name: The option or variable that gave it, for the usage error.
    static func size(_ text: String, for name: String) throws -> Int {
        let kilo = 1024.0
        let units: [(String, Double)] = [
            ("KIB", kilo), ("MIB", kilo * kilo), ("GIB", kilo * kilo * kilo), ("TIB", kilo * kilo * kilo * kilo),
            ("KB", kilo), ("MB", kilo * kilo), ("GB", kilo * kilo * kilo), ("TB", kilo * kilo * kilo * kilo),
            ("K", kilo), ("M", kilo * kilo), ("G", kilo * kilo * kilo), ("T", kilo * kilo * kilo * kilo), ("B", 1),
        ]
        let upper = text.uppercased()
        var number = upper
        var multiplier = 1.0
        for (suffix, factor) in units where upper.hasSuffix(suffix) {
            number = String(upper.dropLast(suffix.count))
            multiplier = factor
            break
        }
        let digits = number.trimmingCharacters(in: .whitespaces)
        guard isDecimal(digits), let value = Double(digits), value.isFinite, value * multiplier < Double(Int.max),
            Int(value * multiplier) > 0 || value == 0
        else {
            throw ToolError.usage("\(name) needs a size such as 1048576, 512K, 10MB or 1.5G, not \"\(text)\"")
        }
        return Int(value * multiplier)
    }

    /// Whether `text` is decimal digits, with a `.` and more digits after them if any.
    private static func isDecimal(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        let digit = UInt8(ascii: "0")...UInt8(ascii: "9")
        return (1...2).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(digit.contains) }
    }
}
