import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataStorage

struct StoreMarkerTests {
    @Test(arguments: [
        ("strata-store 1 file\n", StoreMarker.Contents(kind: "file", version: 1)),
        ("strata-store 1 json", StoreMarker.Contents(kind: "json", version: 1)),
        ("strata-store 12 json\n", StoreMarker.Contents(kind: "json", version: 12)),
    ])
    func markersParse(text: String, expected: StoreMarker.Contents) {
        #expect(StoreMarker.parse(Array(text.utf8)) == expected)
    }

    @Test(arguments: [
        "", "\n", "strata-store", "strata-store 1", "strata-store 0 file", "strata-store 1 file extra",
        "strata-store  1 file", "strata-store 1 File", "strata-store 99999 file", "strata-store 1 file\n\n",
        "strata-store -1 file", "strata-store 1 " + String(repeating: "a", count: 17),
        String(repeating: "strata-store 1 file ", count: 10),
    ])
    func otherTextIsNoMarker(text: String) {
        #expect(StoreMarker.parse(Array(text.utf8)) == nil)
    }

    @Test func adoptWritesOnceAndRefusesAnotherKind() throws {
        try withTemporaryFolder { root in
            let folder = try StoreFolder.open(root, create: false)
            #expect(StoreMarker.read(in: folder) == .missing)
            try StoreMarker.adopt(folder, kind: "file")
            #expect(StoreMarker.read(in: folder) == .marker(.init(kind: "file", version: 1)))
            try StoreMarker.adopt(folder, kind: "file")
            #expect(throws: StrataError.self) { try StoreMarker.adopt(folder, kind: "json") }
        }
    }

    @Test func aForeignFileAtTheMarkerNameIsNeitherTrustedNorOverwritten() throws {
        try withTemporaryFolder { root in
            try Data("my notes".utf8).write(to: URL(fileURLWithPath: root + "/.strata-store"))
            let folder = try StoreFolder.open(root, create: false)
            #expect(StoreMarker.read(in: folder) == .unrecognised(".strata-store is not a Strata marker"))
            #expect(throws: StrataError.self) { try StoreMarker.adopt(folder, kind: "file") }
            #expect(try String(contentsOfFile: root + "/.strata-store", encoding: .utf8) == "my notes")
        }
    }

    @Test func aLinkedMarkerIsNotTrusted() throws {
        try withTemporaryFolder { root in
            try Data("strata-store 1 file\n".utf8).write(to: URL(fileURLWithPath: root + "/elsewhere"))
            try FileManager.default.createDirectory(atPath: root + "/store", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: root + "/store/.strata-store",
                withDestinationPath: root + "/elsewhere"
            )
            let folder = try StoreFolder.open(root + "/store", create: false)
            #expect(StoreMarker.read(in: folder) == .unrecognised(".strata-store is a symbolic link"))
            try StoreMarker.adopt(folder, kind: "json")
            #expect(StoreMarker.read(in: folder) == .marker(.init(kind: "json", version: 1)))
            #expect(try String(contentsOfFile: root + "/elsewhere", encoding: .utf8) == "strata-store 1 file\n")
        }
    }

    /// A socket or a pipe at the marker's name: not a marker that cannot be read (which fails every open) but not
    /// a marker at all, set aside (never deleted) and the marker written.
    @Test(.timeLimit(.minutes(1)), arguments: ["pipe"] + (UnixSocketFile.isAvailable ? ["socket"] : []))
    func aSocketOrAPipeAtTheMarkerNameIsSetAside(kind: String) throws {
        try withTemporaryFolder { root in
            let path = root + "/.strata-store"
            var socket: UnixSocketFile?
            if kind == "pipe" {
                #expect(mkfifo(path, 0o644) == 0)
            } else {
                socket = try UnixSocketFile(at: path)
            }
            defer { _ = socket }
            let folder = try StoreFolder.open(root, create: false)

            try StoreMarker.adopt(folder, kind: "file")

            #expect(StoreMarker.read(in: folder) == .marker(.init(kind: "file", version: 1)))
            let names = try FileManager.default.contentsOfDirectory(atPath: root)
            #expect(names.contains { $0.hasPrefix(".strata-store.damaged-") }, "\(names)")
        }
    }

    @Test func anEmptyMarkerIsWrittenAgain() throws {
        try withTemporaryFolder { root in
            // What a power loss can leave of a marker written without a flush: the name, no bytes
            #expect(FileManager.default.createFile(atPath: root + "/.strata-store", contents: Data()))
            let folder = try StoreFolder.open(root, create: false)
            try StoreMarker.adopt(folder, kind: "file")
            #expect(StoreMarker.read(in: folder) == .marker(.init(kind: "file", version: 1)))
        }
    }

    @Test func theMarkerIsFlushedWithItsFolderWhateverTheDurability() throws {
        try withTemporaryFolder { root in
            let folder = try StoreFolder.open(root, create: false)
            StoreFolder.watchSyncs(of: folder.identity)
            defer { StoreFolder.unwatchSyncs(of: folder.identity) }
            try StoreMarker.adopt(folder, kind: "file")
            #expect((StoreFolder.unwatchSyncs(of: folder.identity) ?? 0) >= 1)
        }
    }
}
