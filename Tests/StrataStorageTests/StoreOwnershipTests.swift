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

    /// A lock file on a file system that takes no record lock (`ENOLCK`: NFS without its lock service) is kept
    /// unlocked, as the folder's `flock` is where it is not taken, and the store opens; a lock another process holds
    /// (`EAGAIN`, `EACCES`) is still in use. Before, every failure was `alreadyInUse`: no store opened there at all.
    @Test(arguments: [ENOLCK, EINVAL, EAGAIN, EACCES])
    func onlyALockHeldElsewhereIsInUse(code: Int32) throws {
        try withTemporaryFolder { root in
            let folder = try StoreFolder.open(root, create: false)
            for mode in [StoreOwnership.Mode.exclusive, .shared] {
                let claim = {
                    try StoreOwnership.$failingRecordLocks.withValue(code) {
                        try StoreOwnership.claim(folder, mode: mode, owner: "A")
                    }
                }
                if code == EAGAIN || code == EACCES {
                    let error = #expect(throws: StrataError.self) { try claim() }
                    #expect(error?.code == .alreadyInUse)
                } else {
                    #expect(throws: Never.self) { try claim().release() }
                }
            }
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

extension StoreOwnershipTests {
    /// A folder removed under its claim and made again by another thread as the claim is released: the new folder
    /// may get the old one's inode, the registry's key, the moment the old claim's last descriptor closes. A claim
    /// must never find an entry whose folder is gone.
    @Test func aReleasedClaimsInodeGivenToANewFolderIsNotInUse() throws {
        try withTemporaryFolder { root in
            let refusals = Locked(0)
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { worker in
                for round in 0..<10_000 {
                    let path = root + "/w\(worker)-\(round % 4)"
                    do {
                        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
                        let claim = try StoreOwnership.claim(
                            try StoreFolder.open(path, create: false),
                            mode: .exclusive,
                            owner: "worker \(worker)"
                        )
                        try FileManager.default.removeItem(atPath: path)
                        claim.release()
                    } catch let error as StrataError where error.code == .alreadyInUse {
                        refusals.withLock { $0 += 1 }
                        try? FileManager.default.removeItem(atPath: path)
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                        return
                    }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty)
            #expect(refusals.withLock { $0 } == 0)
        }
    }
}
