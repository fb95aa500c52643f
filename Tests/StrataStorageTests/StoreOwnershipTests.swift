import Foundation
import Strata
import Testing

@testable import StrataStorage

struct StoreOwnershipTests {
    @Test func anAliasPathReachesTheSameClaim() throws {
        try withTemporaryFolder { root in
            try FileManager.default.createDirectory(atPath: root + "/real", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: root + "/real")
            let first = try StoreOwnership.claim(
                try StoreFolder.open(root + "/real", create: false),
                mode: .exclusive,
                owner: "A"
            )
            // The alias is a link among the parents of "alias/.": the user's path, followed, same folder.
            let viaAlias = try StoreFolder.open(root + "/alias/.", create: false)
            #expect(viaAlias.identity == first.identity)
            #expect(throws: StrataError.self) { try StoreOwnership.claim(viaAlias, mode: .exclusive, owner: "B") }
            first.release()
            let second = try StoreOwnership.claim(viaAlias, mode: .exclusive, owner: "B")
            second.release()
        }
    }

    @Test func aLinkAtTheLockNameIsReplacedNotFollowed() throws {
        try withTemporaryFolder { root in
            let target = root + "/victim"
            try Data("keep".utf8).write(to: URL(fileURLWithPath: target))
            let folder = try StoreFolder.open(root + "/store", create: true)
            try FileManager.default.createSymbolicLink(
                atPath: root + "/store/.strata-lock",
                withDestinationPath: target
            )
            let claim = try StoreOwnership.claim(folder, mode: .exclusive, owner: "A")
            defer { claim.release() }
            #expect(try folder.kind(of: ".strata-lock") == .file)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep")
        }
    }

    @Test func aSharedClaimCreatesNothing() throws {
        try withTemporaryFolder { root in
            let folder = try StoreFolder.open(root, create: false)
            let claim = try StoreOwnership.claim(folder, mode: .shared, owner: "inspector")
            claim.release()
            #expect(try folder.items().isEmpty)
        }
    }
}
