import Foundation
import Strata
import StrataSupport
import StrataTesting
import Testing

@testable import StrataFile

/// The caller's attributes stored with an entry, and the trailer versions that carry them.
struct FileDataSourceAttributesTests {
    @Test func attributesAreStoredWithTheEntryAndSurviveAReopen() throws {
        // Given entries with and without attributes
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore()
        let attributes = Data((0..<200).map { UInt8($0) })
        try store?.setValue(Data("a".utf8), forKey: "a", options: .init(eTag: "\"1\"", attributes: attributes))
        try store?.setValue(Data("b".utf8), forKey: "b")
        try store?.setValue(Data("c".utf8), forKey: "c", options: .init(attributes: Data()))

        // Then info returns them without a read, and a reopened store reads them from the files
        #expect(store?.info(forKey: "a")?.attributes == attributes)
        #expect(store?.info(forKey: "a")?.eTag == "\"1\"")
        #expect(store?.info(forKey: "b")?.attributes == nil)
        #expect(store?.info(forKey: "c")?.attributes == Data())
        store = nil
        let reopened = try folder.makeStore()
        #expect(reopened.info(forKey: "a")?.attributes == attributes)
        #expect(reopened.info(forKey: "b")?.attributes == nil)
        #expect(reopened.info(forKey: "c")?.attributes == Data())
        #expect(reopened.value(forKey: "a") == Data("a".utf8))
    }

    @Test func replacingAnEntryReplacesItsAttributes() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(Data("1".utf8), forKey: "k", options: .init(attributes: Data([1])))
        try store.setValue(Data("2".utf8), forKey: "k")
        #expect(store.info(forKey: "k")?.attributes == nil)
    }

    @Test func movedFilesCarryTheirAttributes() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let file = folder.url.appendingPathComponent("download")
        try Data("body".utf8).write(to: file)
        try store.move(fileAt: file, forKey: "k", options: .init(attributes: Data([9, 9])))
        #expect(store.info(forKey: "k")?.attributes == Data([9, 9]))
        #expect(store.value(forKey: "k") == Data("body".utf8))
    }

    @Test func attributesOverTheLimitAreRefusedAndLeaveTheEntry() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(Data("old".utf8), forKey: "k")
        let tooMany = Data(count: FileDataSource.EntryOptions.maxAttributesSize + 1)
        let error = #expect(throws: StrataError.self) {
            try store.setValue(Data("new".utf8), forKey: "k", options: .init(attributes: tooMany))
        }
        #expect(error?.code == .invalidArgument)
        #expect(store.value(forKey: "k") == Data("old".utf8))
        let atLimit = Data(count: FileDataSource.EntryOptions.maxAttributesSize)
        try store.setValue(Data("new".utf8), forKey: "k", options: .init(attributes: atLimit))
        #expect(store.info(forKey: "k")?.attributes == atLimit)
    }

    @Test func aVersion2TrailerIsStillReadAndAVersion4OneRoundTrips() throws {
        // A version 2 trailer: the version 4 encoding without the attributes length and the fresh-until date,
        // version byte 2
        let trailer = TrailerSurgery.sample
        var version2 = try TrailerSurgery.fields(of: trailer)
        TrailerSurgery.version2(&version2)
        let parsed = TrailerSurgery.sealed(version2).withUnsafeBytes { EntryTrailer(bytes: $0) }
        #expect(parsed == trailer)

        var withAttributes = trailer
        withAttributes.attributes = Data([1, 2, 3])
        let encoded = try withAttributes.encoded()
        let body = Array(encoded.dropLast(8))
        #expect(body.withUnsafeBytes { EntryTrailer(bytes: $0) } == withAttributes)

        // A version the store does not know reads as damaged
        var unknown = body
        unknown[0] = 5
        let rehashed = Array(unknown.dropLast(8))
        var resealed = rehashed
        let sum = rehashed.withUnsafeBytes { XXHash64.hash($0) }
        withUnsafeBytes(of: sum.littleEndian) { resealed.append(contentsOf: $0) }
        #expect(resealed.withUnsafeBytes { EntryTrailer(bytes: $0) } == nil)
    }

    @Test func aVersion2EntryFileOpensAndReads() throws {
        // Given a store folder holding an entry written in the version 2 layout
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            try store.setValue(Data("payload".utf8), forKey: "legacy", options: .init(eTag: "\"v\""))
        }
        let file = try #require(
            FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path).first { $0.hasSuffix(".strata") }
        )
        let path = folder.storeURL().appendingPathComponent(file)
        try TrailerSurgery.editTrailer(of: path, TrailerSurgery.version2)

        // When it is opened, then the entry reads with its metadata and no attributes
        let store = try folder.makeStore()
        #expect(store.value(forKey: "legacy") == Data("payload".utf8))
        #expect(store.info(forKey: "legacy")?.eTag == "\"v\"")
        #expect(store.info(forKey: "legacy")?.attributes == nil)
        #expect(store.corruptEntriesRemoved == 0)
    }
}
