import Foundation
import Testing

/// Command-line errors and help.
struct UsageToolTests {
    @Test(arguments: [
        ["frobnicate", "/tmp"],
        ["inspect"],
        ["inspect", "/tmp", "--bogus"],
        ["inspect", "/tmp", "--limit", "many"],
        ["prune", "/tmp", "--yes"],
        ["prune", "/tmp", "--max-size", "lots"],
        // Not a size the help promises: hexadecimal, an exponent, a sign, less than a byte (a 0-byte limit would
        // prune every entry), a bare dot.
        ["prune", "/tmp", "--max-size", "0x10"], ["prune", "/tmp", "--max-size", "1e3"],
        ["prune", "/tmp", "--max-size", "+5"], ["prune", "/tmp", "--max-size", "0.5"],
        ["prune", "/tmp", "--max-size", ".5K"], ["prune", "/tmp", "--max-size", "1."],
        // An option the command does not take is refused with --help as without it.
        ["help", "--repair"], ["inspect", "/tmp", "--help", "--yes"], ["help", "prune", "--max-count", "1"],
        [], ["clear", "", "--yes"], ["inspect", ""], ["verify", "--", ""],
    ])
    func usageErrorsExitWithTwo(arguments: [String]) async throws {
        let run = try await strata(arguments: arguments)
        #expect(run.status == 2)
        #expect(run.errors.contains("strata help"))
    }

    /// The sizes the help shows are taken, in any case, with a fraction or not; `0` is a size.
    @Test(arguments: ["1048576", "512K", "10MB", "1.5G", "2.25kib", "0"])
    func theHelpsSizesAreTaken(size: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try StoreFixtures.fileStore(in: folder)

        let run = try await strata(arguments: ["prune", store, "--max-size", size, "--dry-run"])

        #expect(run.status == 0, "\(run.errors)")
    }

    @Test func hintsUseTheSpellingTheUserTyped() async throws {
        let plugin = ["STRATA_INVOCATION": "swift package strata"]
        let usage = try await strata(arguments: ["frobnicate"], environment: plugin)
        #expect(usage.status == 2)
        #expect(usage.errors.contains("Run 'swift package strata help' for usage."))
        let help = try await strata(arguments: ["help", "verify"], environment: plugin)
        #expect(help.output.contains("USAGE: swift package strata verify <folder>"))

        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let damaged = try StoreFixtures.fileEntry(holding: 2, count: 200, in: store)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[10] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let verify = try await strata(arguments: ["verify", store], environment: plugin)
        #expect(verify.status == 1)
        #expect(verify.output.contains("run: swift package strata verify --repair '\(store)'"))
        let plain = try await strata(arguments: ["verify", store], environment: ["STRATA_INVOCATION": ""])
        #expect(plain.output.contains("run: strata verify --repair '\(store)'"))
    }

    /// Before, the suggested command printed the folder as it is: `strata verify --repair -old cache` runs as two
    /// arguments, the first an option.
    /// The folder's name as a POSIX shell reads the suggested repair command: the command's last word, once the shell
    /// has parsed it (a name with `'` and a combining mark after it left the quote open: a Character replacement passed
    /// over it, and whatever followed ran).
    @Test(arguments: ["-old cache's", "x'\u{301}; touch pwned; echo '"])
    func theSuggestedRepairIsSafeToPaste(name: String) async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let odd = folder.path(name)
        try FileManager.default.moveItem(atPath: store, toPath: odd)
        let damaged = try StoreFixtures.fileEntry(holding: 2, count: 200, in: odd)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[10] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))

        // Given by its name, from its parent folder
        let run = try await strata(
            shellScript: #"cd "$1" && STRATA_INVOCATION= exec "$0" verify -- "$2""#,
            arguments: [folder.url.path, name]
        )

        #expect(run.status == 1, "\(run.errors)")
        let suggestion = try #require(
            run.output.split(separator: "\n").first { $0.contains("verify --repair") },
            "\(run.output)"
        )
        let command = String(suggestion[suggestion.range(of: "strata verify")!.lowerBound...])
        if name == "-old cache's" {
            #expect(command == #"strata verify --repair -- '-old cache'\''s'"#, "\(suggestion)")
        }
        // The shell, handed the command's words after `--repair`, ends with the name as its last argument.
        let words = String(command.dropFirst("strata verify --repair ".count))
        let parsed = try await strata(
            shellScript: #"cd "$2" && eval "set -- $1"; eval "last=\${$#}"; printf %s "$last""#,
            arguments: [words, folder.url.path]
        )
        #expect(parsed.output == name, "\(words)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("pwned")))
    }

    /// Before, the help said inspect and verify share the store with other readers, while an app that has it open
    /// holds it alone and makes them fail with inUse.
    @Test func theHelpSaysInspectFailsWhileAnAppHasTheStoreOpen() async throws {
        for topic in [[], ["inspect"]] {
            let help = try await strata(arguments: ["help"] + topic)
            #expect(help.output.contains("inUse"), "\(topic)")
            #expect(!help.output.contains("other readers"), "\(topic)")
        }
    }

    @Test func withJSONErrorsAreAJSONObjectOnStandardOutput() async throws {
        let folder = try TemporaryFolder()
        try Data("x".utf8).write(to: folder.url.appendingPathComponent("notes.txt"))
        let cases: [(arguments: [String], code: String, status: Int32)] = [
            (["frobnicate", "--json"], "usage", 2),
            (["inspect", folder.url.path, "--json", "--limit", "many"], "usage", 2),
            (["clear", folder.url.path, "--json"], "usage", 2),
            (["inspect", folder.path("absent"), "--json"], "noSuchFolder", 1),
            (["verify", folder.url.path, "--json"], "notAStore", 1),
            (["inspect", folder.path("notes.txt"), "--json"], "notAFolder", 1),
        ]
        for (arguments, code, status) in cases {
            let run = try await strata(arguments: arguments)
            #expect(run.status == status, "\(arguments)")
            #expect(run.errors.isEmpty, "\(arguments): \(run.errors)")
            let error = try #require(try run.json()["error"] as? [String: Any], "\(arguments)")
            #expect(error["code"] as? String == code, "\(arguments)")
            #expect(error["status"] as? Int == Int(status))
            let message = try #require(error["message"] as? String)
            #expect(!message.isEmpty && !message.contains("\n"))
        }
        #expect(try folder.names(in: "") == ["notes.txt"], "nothing created in a folder that is no store")
    }

    /// A path that is not UTF-8 cannot be a `String`: `CommandLine.arguments` would replace its byte with U+FFFD,
    /// which names another folder. Here `caf<FF>` must not open the store at `caf<U+FFFD>`.
    @Test(arguments: [false, true])
    func anArgumentThatIsNotUTF8IsRefused(json: Bool) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let other = folder.url.appendingPathComponent("caf\u{FFFD}")
        try FileManager.default.moveItem(at: URL(fileURLWithPath: try StoreFixtures.fileStore(in: folder)), to: other)

        let run = try await strata(
            shellScript: #"exec "$0" inspect "$1/caf$(printf '\377')" $2"#,
            arguments: [folder.url.path, json ? "--json" : ""]
        )

        #expect(run.status == 2)
        let message = "argument 2 is not UTF-8 text"
        if json {
            let error = try #require(try run.json()["error"] as? [String: Any])
            #expect(error["code"] as? String == "usage")
            #expect((error["message"] as? String)?.contains(message) == true)
        } else {
            #expect(run.errors.contains(message), "\(run.errors)")
            #expect(run.output.isEmpty, "nothing listed: \(run.output)")
        }
    }

    /// Before, `clear --progress` was taken and ignored: every other option a command does not use is refused.
    @Test func clearRefusesProgressAndRemovesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try StoreFixtures.fileStore(in: folder)
        let entry = try StoreFixtures.fileEntry(holding: 1, count: 100, in: store)

        let run = try await strata("clear", store, "--yes", "--progress")
        let json = try await strata("clear", store, "--yes", "--progress", "--json")

        #expect(run.status == 2)
        #expect(run.errors.contains("clear does not take --progress"), "\(run.errors)")
        #expect(run.errors.contains("strata help"), "\(run.errors)")
        #expect(json.status == 2)
        #expect((try json.json()["error"] as? [String: Any])?["code"] as? String == "usage")
        #expect(FileManager.default.fileExists(atPath: entry), "nothing cleared")
        let inspect = try await strata("inspect", store, "--progress")
        #expect(inspect.status == 0, "the commands that walk the entries still take it: \(inspect.errors)")
    }

    @Test func helpExitsWithZero() async throws {
        let run = try await strata("help")
        #expect(run.status == 0)
        #expect(run.output.contains("EXIT CODES"))
        let prune = try await strata("prune", "--help")
        #expect(prune.output.contains("--dry-run"))
        // A bad value in the environment, which only a command that opens a store reads, keeps no help from showing.
        for arguments in [["help"], ["--help"], ["inspect", "--help"]] {
            let help = try await strata(arguments: arguments, environment: ["STRATA_MAXIMUM_METADATA_SIZE": ""])
            #expect(help.status == 0, "\(arguments): \(help.errors)")
        }
    }

    /// Before, prune's usage left out `--progress`, which it takes; clear's help said the damaged entries a file
    /// store set aside stay, though clear removes those the store provably wrote; and nothing said how to name a
    /// folder that starts with `-`.
    @Test func helpSaysWhatTheCommandsDo() async throws {
        let prune = try await strata("help", "prune")
        let usage = try #require(prune.output.split(separator: "\n").first { $0.hasPrefix("USAGE:") })
        #expect(usage.contains("[--progress]"), "\(usage)")

        let clear = try await strata("help", "clear").output
        #expect(!clear.contains("damaged entries it set aside (kept for you to look at)"), "\(clear)")
        #expect(clear.contains("*.damaged-") && clear.contains("*.corrupt-"), "\(clear)")

        let help = try await strata("help").output
        #expect(help.contains("strata inspect -- -"), "\(help)")
        let dashed = try await strata("inspect", "--", "-no-such-folder")
        #expect(dashed.status == 1 && dashed.errors.contains("no such folder: -no-such-folder"), "\(dashed.errors)")
    }

    @Test func aMissingFolderOrAFolderThatIsNoStoreFails() async throws {
        let folder = try TemporaryFolder()
        try Data("x".utf8).write(to: folder.url.appendingPathComponent("notes.txt"))

        let missing = try await strata("inspect", folder.path("absent"))
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no such folder"))

        let neither = try await strata("verify", folder.url.path)
        #expect(neither.status == 1)
        #expect(neither.errors.contains("is not a Strata store"))
        #expect(try folder.names(in: "") == ["notes.txt"], "nothing created in a folder that is no store")
    }
}
