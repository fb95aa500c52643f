import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// A download's file is made new and deleted by name only: whatever else holds the name — a file, a folder, a link
/// planted there — is neither written through nor emptied.
@Suite("Download files: made new, deleted by name only")
struct DownloadFileTests {
    @Test("a link planted at the name is refused, and what it points to is untouched")
    func linkIsRefused() throws {
        let planted = try PlantedLink(named: "strata-1.download")
        let (name, target) = (planted.name, planted.target)

        #expect(throws: StrataError.self) { try DownloadFile.create(at: name) }
        #expect(try Data(contentsOf: target) == Data("keep".utf8))
    }

    @Test("a file already at the name is refused, not truncated")
    func existingFileIsRefused() throws {
        let folder = try TemporaryFolder()
        let name = folder.url.appendingPathComponent("strata-2.download")
        try Data("someone else's".utf8).write(to: name)

        let error = try #require(throws: StrataError.self) { try DownloadFile.create(at: name) }
        #expect(error.code == .io)
        #expect(try Data(contentsOf: name) == Data("someone else's".utf8))
    }

    @Test("the file is new, written from its start, and readable by its owner only")
    func fileIsPrivate() throws {
        let folder = try TemporaryFolder()
        let name = folder.url.appendingPathComponent("strata-3.download")
        let writer = try DownloadFile.create(at: name)
        try writer.write(Data("body".utf8))
        writer.close()

        #expect(try Data(contentsOf: name) == Data("body".utf8))
        let permissions = try FileManager.default.attributesOfItem(atPath: name.path)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600)
    }

    @Test("a folder swapped in at the name survives the deletion, with what it holds")
    func folderSurvivesRemoval() throws {
        let folder = try TemporaryFolder()
        let name = folder.url.appendingPathComponent("strata-4.download")
        try FileManager.default.createDirectory(at: name, withIntermediateDirectories: false)
        try Data("inside".utf8).write(to: name.appendingPathComponent("file"))

        DownloadFile.remove(at: name)

        #expect(try Data(contentsOf: name.appendingPathComponent("file")) == Data("inside".utf8))
    }

    @Test("a link at the name is removed, and what it points to is untouched")
    func linkIsRemovedNotFollowed() throws {
        let planted = try PlantedLink(named: "strata-5.download")
        let (name, target) = (planted.name, planted.target)

        DownloadFile.remove(at: name)

        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: name.path)) == nil)
        #expect(try Data(contentsOf: target) == Data("keep".utf8))
    }

    @Test("a download the caller lets go deletes its file by name: a folder swapped in there survives")
    func abandonedDownloadKeepsASwappedInFolder() throws {
        let folder = try TemporaryFolder()
        let name = folder.url.appendingPathComponent("strata-6.download")
        try FileManager.default.createDirectory(at: name, withIntermediateDirectories: false)
        try Data("inside".utf8).write(to: name.appendingPathComponent("file"))
        let handOff = DownloadHandOff()

        #expect(handOff.offer(DownloadedFile(fileURL: name, status: 200, headers: HTTPHeaders(), byteCount: 4)))
        handOff.abandon()

        #expect(try Data(contentsOf: name.appendingPathComponent("file")) == Data("inside".utf8))
    }
}

/// A link at a download file's name, to a file outside its folder holding `keep`.
private struct PlantedLink {
    let folder: TemporaryFolder
    let outside: TemporaryFolder
    /// The link.
    let name: URL
    /// The file it points to.
    let target: URL

    init(named fileName: String) throws {
        folder = try TemporaryFolder()
        outside = try TemporaryFolder()
        target = outside.url.appendingPathComponent("precious")
        try Data("keep".utf8).write(to: target)
        name = folder.url.appendingPathComponent(fileName)
        try FileManager.default.createSymbolicLink(at: name, withDestinationURL: target)
    }
}
