import Foundation
import Strata
import StrataFile
import Testing

struct FileDataSourceKeyTests {
    @Test func aMissQuotesTheKeyAsTheMemoryStoreDoes() async throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()

        let error = await #expect(throws: StrataError.self) { try await store.get(KeyQuery("line\nbreak")) }

        #expect(error?.code == .notFound)
        #expect(error?.description == #"StrataError.notFound: No value for key "line\nbreak""#)
    }

    @Test func anEmptyKeyIsRefusedByEveryCall() async throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let bytes = Data("v".utf8)

        let errors = [
            await #expect(throws: StrataError.self) { try await store.put(bytes, in: KeyQuery("")) },
            #expect(throws: StrataError.self) { try store.setValue(bytes, forKey: "") },
            await #expect(throws: StrataError.self) { try await store.get(KeyQuery("")) },
            await #expect(throws: StrataError.self) { try await store.delete(KeyQuery("")) },
        ]

        for error in errors { #expect(error?.code == .invalidArgument) }
        // Nothing reached the folder: only the store's own files are there
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
        #expect(names.allSatisfy { $0.hasPrefix(".strata") })
    }

    @Test func aFolderThatCannotBeCreatedFailsWithThePOSIXCallOnOneLine() throws {
        // Given a regular file where the store's parent folder should be
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: file)

        let error = #expect(throws: StrataError.self) {
            try FileDataSource(configuration: .init(location: .url(file), identifier: "store"))
        }

        // Then the cause is the store's own POSIX error, not a bridged Cocoa error
        let text = try #require(error).detailedDescription()
        #expect(!(error?.description.contains("\n") ?? true))
        #expect(text.contains("errno 20"))
        #expect(!text.contains("NSCocoaErrorDomain"))
        #expect(!text.contains("(null)"))
    }
}
