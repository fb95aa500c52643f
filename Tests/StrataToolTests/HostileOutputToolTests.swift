import Foundation
import Strata
import StrataFile
import StrataTesting
import Testing

/// The `strata` binary where its output goes wrong: a standard output it cannot write to, and keys or ETags from a
/// server that hold a terminal's control characters.
struct HostileOutputToolTests {
    /// A full disk behind standard output (`/dev/full`): the tool says so on standard error and exits with 1, with
    /// and without `--json` — before: Foundation's `FileHandle.write` trapped, and the process died of a signal.
    @Test(
        "an output that cannot be written is an error with exit code 1, not a crash",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full (Linux)"),
        arguments: [false, true]
    )
    func anUnwritableOutputIsAFailure(json: Bool) async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? full.close() }

        let run = try await strata(
            arguments: ["inspect", store] + (json ? ["--json"] : []),
            standardOutput: full
        )

        #expect(run.status == 1)
        #expect(run.errors.contains("cannot write to standard output"), "\(run.errors)")
    }

    /// A key and an ETag holding C1 controls (CSI, U+009B, is an escape sequence's start in one character) and a
    /// right-to-left override: `inspect` shows each as `?` — before: C0 controls alone were replaced.
    @Test func controlCharactersFromAServerReachNoTerminal() async throws {
        let folder = try TemporaryFolder()
        do {
            let store = try FileDataSource(
                configuration: .init(location: .url(folder.url), identifier: "store", clock: ManualClock())
            )
            try store.setValue(
                Data("x".utf8),
                forKey: "key\u{9B}2J\u{202E}gpj.exe",
                options: .init(eTag: "\"\u{9B}1A\u{2066}\"")
            )
        }

        let run = try await strata("inspect", folder.path("store"))

        #expect(run.status == 0)
        #expect(run.output.contains("key?2J?gpj.exe"), "\(run.output)")
        #expect(run.output.contains("\"?1A?\""), "\(run.output)")
        #expect(!run.output.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x202E })

        // With --json too: escaped in the strings, the same characters to a JSON reader
        let json = try await strata("inspect", folder.path("store"), "--json")
        #expect(json.status == 0)
        #expect(!json.output.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || $0.value == 0x202E })
        #expect(json.output.contains("\\u009B2J\\u202Egpj.exe"), "\(json.output)")
        let entries = try #require(try json.json()["entries"] as? [[String: Any]])
        #expect(entries.first?["key"] as? String == "key\u{9B}2J\u{202E}gpj.exe")
    }
}
