import Foundation
import Strata
import Testing

@testable import StrataStorage

/// `renameWithoutReplacing(_:to:)`: a rename that leaves whatever is at its target (a file, a link, a folder) as it
/// was, and fails with `EEXIST`.
struct StoreFolderNoReplaceTests {
    @Test func aRenameWithoutReplacingLeavesWhatIsAtTheTarget() throws {
        try withTemporaryFolder { root in
            let folder = try StoreFolder.open(root, create: false)
            try Data("ours".utf8).write(to: URL(fileURLWithPath: root + "/new"))
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: root + "/file"))
            try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/file")
            try FileManager.default.createDirectory(atPath: root + "/folder", withIntermediateDirectories: false)

            for target in ["file", "link", "folder"] {
                #expect { try folder.renameWithoutReplacing("new", to: target) } throws: {
                    ($0 as? POSIXCallError)?.alreadyExists == true
                }
            }

            #expect(try String(contentsOfFile: root + "/file", encoding: .utf8) == "theirs")
            #expect(try folder.kind(of: "link") == .link)
            #expect(try folder.kind(of: "folder") == .folder)
            #expect(try String(contentsOfFile: root + "/new", encoding: .utf8) == "ours")
            try folder.renameWithoutReplacing("new", to: "free")
            #expect(try String(contentsOfFile: root + "/free", encoding: .utf8) == "ours")
            #expect(try folder.kind(of: "new") == nil)
        }
    }
}
