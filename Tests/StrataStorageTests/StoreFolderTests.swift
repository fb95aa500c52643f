import Foundation
import Strata
import Testing

@testable import StrataStorage

/// A fresh temporary folder, removed after the test.
func withTemporaryFolder(_ body: (String) throws -> Void) throws {
    let path = NSTemporaryDirectory() + "strata-storage-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    try body(path)
}

struct StoreFolderTests {
    @Test func anAtomicWriteReplacesALinkAndNeverWritesThroughIt() throws {
        try withTemporaryFolder { root in
            // Given a link at the entry's name that points outside the folder
            let outside = root + "/outside.txt"
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: outside))
            try FileManager.default.createDirectory(atPath: root + "/store", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: root + "/store/entry", withDestinationPath: outside)
            let folder = try StoreFolder.open(root + "/store", create: false)

            // When the store writes the entry
            try folder.writeAtomically(Array("ours".utf8), to: "entry", temporaryPrefix: ".tmp-", durable: true)

            // Then the link is gone, the target untouched
            #expect(try String(contentsOfFile: outside, encoding: .utf8) == "theirs")
            #expect(try folder.kind(of: "entry") == .file)
            #expect(try folder.readFile("entry", limit: 100) == Data("ours".utf8))
        }
    }

    @Test func readsAndSubfoldersRefuseLinks() throws {
        try withTemporaryFolder { root in
            try FileManager.default.createDirectory(atPath: root + "/elsewhere", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/elsewhere/file"))
            let folder = try StoreFolder.open(root + "/store", create: true)
            try FileManager.default.createSymbolicLink(
                atPath: root + "/store/file",
                withDestinationPath: root + "/elsewhere/file"
            )
            try FileManager.default.createSymbolicLink(
                atPath: root + "/store/shard",
                withDestinationPath: root + "/elsewhere"
            )

            #expect(throws: POSIXCallError.self) { try folder.readFile("file", limit: 10) }
            do throws(POSIXCallError) {
                _ = try folder.readFile("file", limit: 10)
            } catch {
                #expect(error.isLink)
            }
            do throws(POSIXCallError) {
                _ = try folder.subfolder("shard", create: true)
                Issue.record("a linked subfolder was opened")
            } catch {
                #expect(error.isLink)
            }
            #expect(try folder.kind(of: "shard") == .link)
            #expect(try folder.remove("file"))
            #expect(FileManager.default.fileExists(atPath: root + "/elsewhere/file"))
            let items = try folder.items().sorted { $0.name < $1.name }
            #expect(items.map(\.name) == ["shard"])
            #expect(items.map(\.kind) == [.link])
        }
    }

    @Test func theFolderItselfMustNotBeALink() throws {
        try withTemporaryFolder { root in
            try FileManager.default.createDirectory(atPath: root + "/real", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: root + "/real")
            #expect(throws: POSIXCallError.self) { try StoreFolder.open(root + "/alias", create: false) }
        }
    }

    @Test func namesThatAreNotOneComponentAreRefused() throws {
        try withTemporaryFolder { root in
            let folder = try StoreFolder.open(root, create: false)
            for name in ["", ".", "..", "a/b", "../x", "a\u{0}b"] {
                #expect(throws: POSIXCallError.self) { try folder.openFile(name, O_RDONLY) }
            }
        }
    }

    @Test func temporaryFilesAreNewAndUnpredictable() throws {
        try withTemporaryFolder { root in
            let folder = try StoreFolder.open(root, create: false)
            let first = try folder.createTemporary(prefix: ".tmp-")
            let second = try folder.createTemporary(prefix: ".tmp-")
            close(first.descriptor)
            close(second.descriptor)
            #expect(first.name != second.name)
            #expect(first.name.hasPrefix(".tmp-"))
        }
    }

    @Test func aCopyInHoldsEveryByteOfTheSourceInANewTemporaryFile() throws {
        try withTemporaryFolder { root in
            // Given a source of a few chunks and a bit, open, and a store folder
            let bytes = (0..<((5 << 19) + 7)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/source"))
            let source = open(root + "/source", O_RDONLY)
            defer { close(source) }
            let folder = try StoreFolder.open(root + "/store", create: true)

            // When it is copied in
            let name = try folder.copyIn(source, temporaryPrefix: ".tmp-")

            // Then the folder holds one new regular file with the source's bytes
            #expect(name.hasPrefix(".tmp-"))
            #expect(try folder.items().map(\.name) == [name])
            #expect(try folder.readFile(name, limit: bytes.count) == Data(bytes))
        }
    }
}
