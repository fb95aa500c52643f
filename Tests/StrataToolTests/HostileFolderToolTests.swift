import Foundation
import Strata
import StrataFile
import StrataJSONFile
import StrataTestSupport
import Testing

/// The `strata` binary on folders it must not take for a store, and on stores an attacker has planted links
/// in: it acts only on a folder carrying a store's marker, follows no link, and changes nothing unless the
/// command is a writing one.
struct HostileFolderToolTests {
    /// Every command, writing ones included.
    static let commands: [[String]] = [
        ["clear", "--yes"], ["prune", "--max-count", "0"], ["verify", "--repair"], ["verify"], ["inspect"],
    ]

    /// Runs every command on `folder`, expecting each refused as no store, and nothing changed in `watched`.
    private func expectRefused(_ folder: String, watching watched: [URL]) async throws {
        let before = try watched.map(FolderSnapshot.init)
        for command in Self.commands {
            let run = try await strata(arguments: [command[0], folder] + command.dropFirst())
            #expect(run.status == 1, "\(command) exits with 1")
            #expect(run.errors.contains("is not a Strata store"), "\(command): \(run.errors)")
            #expect(run.errors.contains("Nothing was changed"))
        }
        for (folder, snapshot) in zip(watched, before) {
            let after = try FolderSnapshot(folder)
            #expect(after == snapshot, "\(folder.path) changed:\n\(after)\nwas:\n\(snapshot)")
        }
    }

    /// A folder with the files a JSON-file store has (an `entries/` tree of `*.json`, `.tmp-*` files) but
    /// no marker.
    private func foreignJSONLikeFolder(_ url: URL) throws {
        let shard = url.appendingPathComponent("entries/ab", isDirectory: true)
        try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
        try Data(#"{"report":1}"#.utf8).write(to: shard.appendingPathComponent("ab12.json"))
        try Data(#"{"mine":true}"#.utf8).write(to: url.appendingPathComponent("settings.json"))
        try Data("draft".utf8).write(to: url.appendingPathComponent(".tmp-draft"))
        try Data("draft".utf8).write(to: shard.appendingPathComponent(".tmp-42"))
    }

    @Test func aForeignFolderWithAnEntriesFolderIsRefusedAndUntouched() async throws {
        let folder = try TemporaryFolder()
        let foreign = folder.url.appendingPathComponent("documents")
        try foreignJSONLikeFolder(foreign)

        try await expectRefused(foreign.path, watching: [folder.url])

        #expect(!FileManager.default.fileExists(atPath: foreign.appendingPathComponent("index.journal").path))
    }

    @Test func anEntriesLinkToAnotherFolderIsNotFollowed() async throws {
        let folder = try TemporaryFolder()
        let other = folder.url.appendingPathComponent("other")
        try foreignJSONLikeFolder(other)
        let foreign = folder.url.appendingPathComponent("documents")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: false)
        try Data(#"{"mine":true}"#.utf8).write(to: foreign.appendingPathComponent("settings.json"))
        try Data("draft".utf8).write(to: foreign.appendingPathComponent(".tmp-draft"))
        try FileManager.default.createSymbolicLink(
            at: foreign.appendingPathComponent("entries"),
            withDestinationURL: other.appendingPathComponent("entries")
        )

        // Both folders are watched: the link's destination as well as the folder given.
        try await expectRefused(foreign.path, watching: [foreign, other])
    }

    @Test func aFolderWithOneHexNamedFileIsRefused() async throws {
        let folder = try TemporaryFolder()
        let foreign = folder.url.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: false)
        try Data("precious".utf8).write(to: foreign.appendingPathComponent("0123456789abcdef0123456789abcdef.strata"))
        try Data().write(to: foreign.appendingPathComponent(".strata-lock"))

        try await expectRefused(foreign.path, watching: [folder.url])
    }

    @Test(
        arguments: [
            ("a link to a real marker", nil),
            ("an unknown kind", "strata-store 1 blob\n"),
            ("a newer layout", "strata-store 2 file\n"),
            ("other text", "strata-store file\n"),
        ] as [(String, String?)]
    )
    func anUnrecognisedMarkerIsRefused(case description: String, marker: String?) async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let foreign = folder.url.appendingPathComponent("foreign")
        try foreignJSONLikeFolder(foreign)
        let markerURL = foreign.appendingPathComponent(".strata-store")
        if let marker {
            try Data(marker.utf8).write(to: markerURL)
        } else {
            try FileManager.default.createSymbolicLink(
                atPath: markerURL.path,
                withDestinationPath: store + "/.strata-store"
            )
        }
        let before = try FolderSnapshot(folder.url)

        for command in Self.commands {
            let run = try await strata(arguments: [command[0], foreign.path] + command.dropFirst())
            #expect(run.status == 1, "\(description): \(command)")
            #expect(run.errors.contains("Nothing was changed"), "\(description): \(run.errors)")
        }

        #expect(try FolderSnapshot(folder.url) == before, "\(description): nothing changed, the store included")
    }

    @Test func aStoreFolderGivenAsALinkIsRefused() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let link = folder.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store)
        let before = try FolderSnapshot(folder.url)

        let run = try await strata("clear", link, "--yes")

        #expect(run.status == 1)
        #expect(run.errors.contains("symbolic link"))
        #expect(try FolderSnapshot(folder.url) == before)
    }

    /// Before, a trailing `/` made the system follow the link (`O_NOFOLLOW` looks at the last component, which `link/`
    /// and `link/.` are not): `link/` was `notAFolder`, and `link//` or `link/.` opened the store the link named.
    @Test(arguments: ["/", "//", "/.", "/./"])
    func aStoreFolderGivenAsALinkWithATrailingSlashIsRefusedAsALink(suffix: String) async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let link = folder.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store)
        let before = try FolderSnapshot(folder.url)

        let run = try await strata("clear", link + suffix, "--yes", "--json")

        #expect(run.status == 1)
        #expect((try run.json()["error"] as? [String: Any])?["code"] as? String == "link", "\(run.output)")
        #expect(try FolderSnapshot(folder.url) == before)
    }

    @Test func aLinkInAFileStoreIsReportedAndChangesNothingWithoutRepair() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        // A copy of a real entry outside the store, and a link to it at the entry's name.
        let entry = try StoreFixtures.fileEntry(holding: 2, count: 200, in: store)
        let outside = folder.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        let target = outside.appendingPathComponent("copy.strata")
        try FileManager.default.copyItem(atPath: entry, toPath: target.path)
        try FileManager.default.removeItem(atPath: entry)
        try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: target.path)
        let before = try FolderSnapshot(folder.url)

        let inspected = try await strata("inspect", store, "--json")
        let verified = try await strata("verify", store, "--json")

        #expect(inspected.status == 0)
        let summary = try #require(try inspected.json()["summary"] as? [String: Any])
        #expect(summary["damaged"] as? Int == 1, "the link is damage, not the entry it points to")
        #expect(verified.status == 1)
        let corrupt = try #require(try verified.json()["corrupt"] as? [[String: Any]])
        #expect(corrupt.map { $0["file"] as? String } == [URL(fileURLWithPath: entry).lastPathComponent])
        #expect(try FolderSnapshot(folder.url) == before, "inspect and verify change nothing")

        let repaired = try await strata("verify", store, "--repair")

        #expect(repaired.status == 0, "\(repaired.output)\(repaired.errors)")
        #expect(!FileManager.default.fileExists(atPath: entry), "the link itself is removed")
        #expect(try FolderSnapshot(outside) == FolderSnapshot(before, under: "outside/"), "never its target")
    }

    @Test func aLinkInAJSONStoreIsReportedAndChangesNothingWithoutRepair() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.jsonStore(in: folder)
        let inspected = try await strata("inspect", store, "--json").json()
        let entries = try #require(inspected["entries"] as? [[String: Any]])
        let path = try #require(entries.first { $0["key"] as? String == "ada" }?["file"] as? String)
        let entry = store + "/" + path
        let outside = folder.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        let target = outside.appendingPathComponent("copy.json")
        try FileManager.default.copyItem(atPath: entry, toPath: target.path)
        try FileManager.default.removeItem(atPath: entry)
        try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: target.path)
        let before = try FolderSnapshot(folder.url)

        let inspect = try await strata("inspect", store, "--json")
        let verify = try await strata("verify", store, "--json")

        #expect(inspect.status == 0)
        #expect(verify.status == 1, "the link is damage: \(verify.output)")
        let corrupt = try #require(try verify.json()["corrupt"] as? [[String: Any]])
        #expect(corrupt.map { $0["key"] as? String } == ["ada"])
        #expect(try FolderSnapshot(folder.url) == before, "inspect and verify change nothing")
        let outsideBefore = try FolderSnapshot(outside)

        _ = try await strata("verify", store, "--repair")

        #expect(try FolderSnapshot(outside) == outsideBefore, "the link's target is never touched")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: entry)) == nil, "the link is gone")
    }

    @Test(.enabled(if: BindMount.isAvailable, "needs root and mount(8) for a read-only bind mount"))
    func inspectAndVerifyWorkOnReadOnlyMedia() async throws {
        let folder = try TemporaryFolder()
        let fileStore = try StoreFixtures.fileStore(in: folder)
        let jsonStore = try StoreFixtures.jsonStore(in: folder)
        do {
            let mount = try #require(
                BindMount.make(folder.url, at: folder.url.appendingPathComponent("media"), readOnly: true)
            )
            for (store, count) in [("store", 4), ("json", 3)] {
                let path = mount.url.appendingPathComponent(store).path
                let inspected = try await strata("inspect", path, "--json")
                #expect(inspected.status == 0, "\(store): \(inspected.errors)")
                let summary = try #require(try inspected.json()["summary"] as? [String: Any])
                #expect(summary["count"] as? Int == count)
                let verified = try await strata("verify", path)
                #expect(verified.status == 0, "\(store): \(verified.errors)")
                let cleared = try await strata("clear", path, "--yes")
                #expect(cleared.status == 1, "a writing command fails on read-only media")
            }
            withExtendedLifetime(mount) {}
        }
        #expect(FileStoreInspector.isStore(at: URL(fileURLWithPath: fileStore)))
        #expect(JSONFileStoreInspector.isStore(at: URL(fileURLWithPath: jsonStore)))
    }
}
