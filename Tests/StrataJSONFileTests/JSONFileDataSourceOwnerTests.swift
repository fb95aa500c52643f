import Foundation
import Strata
import StrataJSONFile
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One live store per folder: a second one, in this process or another, through any path, is refused up
/// front with `alreadyInUse` (two writers on one journal lost half their acknowledged writes).
struct JSONFileDataSourceOwnerTests {
    @Test func aSecondStoreInThisProcessIsRefusedUntilTheFirstGoes() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let first = try fixture.open()
                try first.setValue(Item(name: "a", number: 1), forKey: "a")
                await expectError(.alreadyInUse) { try fixture.open() }
                // The refused store changed nothing: the first goes on working.
                try first.setValue(Item(name: "b", number: 2), forKey: "b")
                #expect(first.sortedKeys() == ["a", "b"])
            }
            #expect(try fixture.open().sortedKeys() == ["a", "b"])
        }
    }

    @Test func anAliasPathReachesTheSameOwner() async throws {
        try await withTemporaryFolder { parent in
            let real = parent.appendingPathComponent("real")
            let store = try Fixture(folder: real.appendingPathComponent("store")).open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            // The same folder through a symlinked parent
            let alias = parent.appendingPathComponent("alias")
            try FileManager.default.createSymbolicLink(at: alias, withDestinationURL: real)

            await expectError(.alreadyInUse) { try Fixture(folder: alias.appendingPathComponent("store")).open() }
            await expectError(.alreadyInUse) {
                try Fixture(folder: alias.appendingPathComponent("store/../store")).open()
            }
            #expect(try store.value(forKey: "a") == Item(name: "a", number: 1))
        }
    }

    @Test func aSecondWriterProcessIsRefusedUpFront() async throws {
        let writer = try JSONFileDataSourceCrashTests.writerURL()
        try await withTemporaryFolder { folder in
            // Given a live store in this process
            let store = try JSONFileDataSource<JSONFileDataSourceCrashTests.CrashPayload>(
                configuration: .init(folder: folder)
            )
            let payload = JSONFileDataSourceCrashTests.CrashPayload(key: "k0", version: -1, filler: "")
            try store.setValue(payload, forKey: "k0")

            // When another process opens the same folder, through an alias path
            let alias = folder.deletingLastPathComponent().appendingPathComponent("alias-\(UUID().uuidString)")
            try FileManager.default.createSymbolicLink(
                at: alias,
                withDestinationURL: folder.deletingLastPathComponent()
            )
            defer { try? FileManager.default.removeItem(at: alias) }
            let (status, errorOutput, acknowledged) = try await onDedicatedThread {
                try Self.run(writer, folder: alias.appendingPathComponent(folder.lastPathComponent))
            }

            // Then it is refused before writing anything
            #expect(status == 1)
            #expect(errorOutput.contains("alreadyInUse"), "\(errorOutput)")
            #expect(acknowledged == 0)
            #expect(store.sortedKeys() == ["k0"])
            #expect(try store.value(forKey: "k0") == payload)
        }
    }

    @Test func aStoreIsRefusedWhileAnotherProcessHoldsTheFolder() async throws {
        let writer = try JSONFileDataSourceCrashTests.writerURL()
        try await withTemporaryFolder { folder in
            // Given a writer process that holds the store and writes
            let process = ChildProcess()
            process.executableURL = writer
            process.arguments = [folder.path, "atomic", "0", "4"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            let ready = try await onDedicatedThread { () -> Bool in
                var text = ""
                while !text.contains("ACK 10") {
                    let data = output.fileHandleForReading.nextChunk()
                    if data.isEmpty { return false }
                    text += String(decoding: data, as: UTF8.self)
                }
                return true
            }
            #expect(ready)

            // When this process opens the same folder, then it is refused
            await expectError(.alreadyInUse) { try JSONFileDataSource<Item>(folder: folder) }
            await expectError(.alreadyInUse) { try JSONFileStoreInspector(folder: folder, access: .readOnly) }
            await expectError(.alreadyInUse) { try JSONFileStoreInspector(folder: folder, access: .readWrite) }
        }
    }

    /// Runs the writer fixture on `folder` to its end; returns its exit status, its error output and how many
    /// writes it acknowledged.
    private static func run(_ writer: URL, folder: URL) throws -> (Int32, String, Int) {
        let process = ChildProcess()
        process.executableURL = writer
        process.arguments = [folder.path, "atomic", "0", "4"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = output.fileHandleForReading.readToEndAcrossInterrupts()
        let errorOutput = errors.fileHandleForReading.readToEndAcrossInterrupts()
        process.waitUntilExit()
        let acknowledged = String(decoding: printed, as: UTF8.self).split(separator: "\n").filter {
            $0.hasPrefix("ACK")
        }
        return (process.terminationStatus, String(decoding: errorOutput, as: UTF8.self), acknowledged.count)
    }
}
