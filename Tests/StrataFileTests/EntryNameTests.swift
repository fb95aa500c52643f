import Testing

@testable import StrataFile

/// The file name of an entry: the key's 128-bit name in hex and the entry extension.
struct EntryNameTests {
    @Test func entryNamesRoundTripThroughFileNames() {
        let name = EntryName(key: "https://example.com/image.png?size=2")
        let fileName = name.fileName
        #expect(fileName.count == 32 + EntryName.fileExtension.count)
        #expect(EntryName(fileName: fileName) == name)
        #expect(EntryName(fileName: "notes.txt") == nil)
        #expect(EntryName(fileName: String(repeating: "G", count: 32) + ".strata") == nil)
    }
}
