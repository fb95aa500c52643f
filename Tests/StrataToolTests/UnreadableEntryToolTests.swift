import Foundation
import Testing

/// The `strata` binary run as a user who cannot read one entry of a file store: such an entry is not damage (the
/// store leaves it alone too), so `verify --repair` must leave it where it is.
struct UnreadableEntryToolTests {
    /// Whether the tests run as root and `setpriv` is there to run the tool as `nobody`: root reads every file,
    /// so only another user can meet an entry it cannot read. Not under a sanitizer: the ThreadSanitizer runtime of
    /// a tool started as another user exits with its code 66 before the tool runs (seen in CI).
    static let canRunAsNobody =
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && !isSanitized

    /// Whether this process (and so the tool, built with it) runs under ThreadSanitizer or AddressSanitizer: their
    /// runtimes export these symbols, and `.ci/run` builds them in scratch folders of these names.
    static let isSanitized =
        ["__tsan_init", "__asan_init"].contains { (name: String) in
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) != nil
        } || [".build-tsan/", ".build-asan/"].contains { productsDirectory.path.contains($0) }

    /// Runs the tool as `nobody` (uid and gid 65534, no supplementary groups) with `arguments`.
    static func strataAsNobody(_ arguments: String...) async throws -> ToolRun {
        try await strata(
            shellScript: "exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \"$0\" \"$@\"",
            arguments: arguments
        )
    }

    /// A file store `nobody` owns (the tool refuses to change another user's store) holding `a`, whose entry file
    /// only root may read (root's, 0600), and `b`, whose data has a flipped byte (damage); returns the store's path
    /// and both files.
    static func storeWithAnUnreadableEntry(in folder: TemporaryFolder) throws -> (
        store: String, unreadable: String, damaged: String
    ) {
        let store = try StoreFixtures.fileStore(in: folder)
        let manager = FileManager.default
        try manager.setAttributes([.posixPermissions: 0o777], ofItemAtPath: store)
        try manager.setAttributes([.posixPermissions: 0o666], ofItemAtPath: store + "/.strata-lock")
        let unreadable = try StoreFixtures.fileEntry(holding: 1, count: 100, in: store)
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: unreadable)
        let damaged = try StoreFixtures.fileEntry(holding: 2, count: 200, in: store)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[10] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))
        try changeOwner(of: store, to: "65534:65534", recursively: true)
        try changeOwner(of: unreadable, to: "0:0", recursively: false)
        return (store, unreadable, damaged)
    }

    /// Runs `chown`.
    private static func changeOwner(of path: String, to owner: String, recursively: Bool) throws {
        let chown = Process()
        chown.executableURL = URL(fileURLWithPath: "/bin/chown")
        chown.arguments = (recursively ? ["-R"] : []) + [owner, path]
        try chown.run()
        chown.waitUntilExit()
        guard chown.terminationStatus == 0 else { throw CocoaError(.fileWriteNoPermission) }
    }

    @Test(.enabled(if: canRunAsNobody, "needs root and setpriv to run the tool as another user"))
    func verifyRepairLeavesAnEntryItCannotReadWhereItIs() async throws {
        // Given a file store with an entry nobody cannot read, and a damaged one
        let folder = try TemporaryFolder()
        let (store, unreadable, damaged) = try Self.storeWithAnUnreadableEntry(in: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: unreadable))

        // When nobody runs verify --repair
        let run = try await Self.strataAsNobody("verify", store, "--repair")

        // Then the damaged entry is removed, the unreadable one stays at its name, byte for byte, and is not counted
        // as corrupt: the summary says it was left as it is, and why
        #expect(FileManager.default.fileExists(atPath: unreadable), "\(run.output)\(run.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: unreadable)) == before)
        #expect(!(try folder.names(in: "store").contains { $0.contains(".damaged-") }))
        #expect(!FileManager.default.fileExists(atPath: damaged))
        #expect(run.output.contains("1 corrupt"), "\(run.output)")
        #expect(run.output.contains("1 not checked"), "\(run.output)")
        #expect(run.output.contains("Permission denied"), "\(run.output)")
        #expect(run.output.contains("removed 1 damaged entry files"), "\(run.output)")
        #expect(run.status == 1, "an entry the tool could not check is not a verified store: \(run.output)")
        let json = try await Self.strataAsNobody("verify", store, "--json").json()
        #expect((json["corrupt"] as? [Any])?.count == 0, "\(json)")
        #expect((json["unchecked"] as? [[String: Any]])?.map { $0["key"] as? String } == [nil], "\(json)")
        #expect(json["ok"] as? Bool == false)
    }
    @Test(.enabled(if: canRunAsNobody, "needs root and setpriv to run the tool as another user"))
    func inspectTellsAnEntryItCannotReadFromADamagedOne() async throws {
        // Given a file store with an entry nobody cannot read, and a damaged one
        let folder = try TemporaryFolder()
        let (store, unreadable, _) = try Self.storeWithAnUnreadableEntry(in: folder)

        // When nobody inspects it
        let run = try await Self.strataAsNobody("inspect", store)

        // Then the entry it cannot read is listed as unreadable, not damaged, and counted apart
        let name = URL(fileURLWithPath: unreadable).lastPathComponent
        #expect(run.output.contains("(unreadable) \(name)"), "\(run.output)")
        #expect(!run.output.contains("(damaged)"), "\(run.output)")
        #expect(run.output.contains("Damaged: 0   Unreadable: 1"), "\(run.output)")
        let json = try await Self.strataAsNobody("inspect", store, "--json").json()
        let summary = json["summary"] as? [String: Any]
        #expect(summary?["damaged"] as? Int == 0, "\(json)")
        #expect(summary?["unreadable"] as? Int == 1, "\(json)")
    }

    @Test(.enabled(if: canRunAsNobody, "needs root and setpriv to run the tool as another user"))
    func aJSONFileStoreEntryItCannotReadIsNoDamage() async throws {
        // Given a JSON-file store nobody owns, whose entry file of `grace` only root may read
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.jsonStore(in: folder)
        let unreadable = try Self.jsonEntryFile(holding: "Grace", in: store)
        try Self.changeOwner(of: store, to: "65534:65534", recursively: true)
        try Self.changeOwner(of: unreadable, to: "0:0", recursively: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: unreadable)
        let before = try Data(contentsOf: URL(fileURLWithPath: unreadable))

        // When nobody verifies it and repairs it
        let verify = try await Self.strataAsNobody("verify", store, "--json").json()
        let repair = try await Self.strataAsNobody("verify", store, "--repair")

        // Then the entry is not checked, not corrupt: listed apart and left where it is, byte for byte
        #expect((verify["corrupt"] as? [Any])?.count == 0, "\(verify)")
        #expect((verify["unchecked"] as? [[String: Any]])?.map { $0["key"] as? String } == ["grace"], "\(verify)")
        #expect(verify["ok"] as? Bool == false)
        #expect(repair.output.contains("0 corrupt, 1 not checked"), "\(repair.output)\(repair.errors)")
        #expect(repair.status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: unreadable)) == before)
    }

    /// The path of the JSON-file store's entry file whose bytes contain `marker`.
    private static func jsonEntryFile(holding marker: String, in store: String) throws -> String {
        let entries = URL(fileURLWithPath: store).appendingPathComponent("entries")
        let files = FileManager.default.enumerator(at: entries, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "json", let data = try? Data(contentsOf: file) else { continue }
            if data.range(of: Data(marker.utf8)) != nil { return file.path }
        }
        throw CocoaError(.fileNoSuchFile)
    }
}
