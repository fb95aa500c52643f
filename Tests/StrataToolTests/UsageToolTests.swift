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
        [],
    ])
    func usageErrorsExitWithTwo(arguments: [String]) async throws {
        let run = try await strata(arguments: arguments)
        #expect(run.status == 2)
        #expect(run.errors.contains("strata help"))
    }

    @Test func helpExitsWithZero() async throws {
        let run = try await strata("help")
        #expect(run.status == 0)
        #expect(run.output.contains("EXIT CODES"))
        let prune = try await strata("prune", "--help")
        #expect(prune.output.contains("--dry-run"))
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
