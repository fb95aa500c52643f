import Foundation
import Strata
import StrataJSONFile
import StrataSupport
import StrataTesting
import Testing

@testable import StrataJSONFile

struct JSONFileDataSourceKeyTests {
    static let hostileKeys: [String] = [
        ".", "..", "../escape", "../../../../../../tmp/strata-escape", "/absolute", "a/b/c", "\\windows\\path",
        "a\0b", "\0", "line\nbreak", "tab\there", "space key", "Case", "case", "CASE", "😀🇫🇷👩‍👩‍👧", "e\u{301}",
        "index.journal", "entries", "con", "nul.json", ".tmp-1", "x.corrupt-20231114-221320",
        String(repeating: "k", count: 10_000), String(repeating: "🙂", count: 2_500),
    ]

    @Test func fileNamesAreSHA256OfTheKey() {
        #expect(
            SHA256.hex(of: "abc", byteCount: 32) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        #expect(SHA256.hex(of: "", byteCount: 32) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex(of: String(repeating: "a", count: 1_000), byteCount: 32)
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"
        )
    }

    @Test func hostileKeysStayInsideTheFolderAndRoundTrip() async throws {
        try await withTemporaryFolder { parent in
            let fixture = Fixture(folder: parent.appendingPathComponent("store"))
            let keys = Self.hostileKeys
            do {
                let store = try fixture.open()
                for (number, key) in keys.enumerated() {
                    try store.setValue(Item(name: key, number: number), forKey: key)
                    if number % 100 == 0 { await Task.yield() }
                }
                for (number, key) in keys.enumerated() {
                    let read = try store.value(forKey: key)
                    #expect(read?.number == number && read?.name == key, "key of \(key.count) characters")
                }
                #expect(store.count == keys.count)
                // Canonically equivalent strings are one key in Swift, so they are one entry.
                try store.setValue(Item(name: "é", number: -1), forKey: "\u{e9}")
                #expect(try store.value(forKey: "e\u{301}")?.number == -1)
                #expect(store.count == keys.count)
            }
            // Nothing escaped: the parent holds only the store's folder, the store only its own files.
            #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["store"])
            #expect(!FileManager.default.fileExists(atPath: "/tmp/strata-escape"))
            for file in try fixture.files() {
                #expect(
                    [".strata-lock", ".strata-store", "index.journal"].contains(file)
                        || file.wholeMatch(of: /entries\/[0-9a-f]{2}\/[0-9a-f]{32}\.json/) != nil
                )
            }
            // The index carries every key through a reopen.
            let reopened = try fixture.open()
            let sameKeys = reopened.sortedKeys() == keys.sorted()
            #expect(sameKeys)
            for (number, key) in keys.enumerated() where key != "e\u{301}" {
                let read = try reopened.value(forKey: key)?.number
                #expect(read == number, "key of \(key.count) characters")
            }
            #expect(try reopened.value(forKey: "\u{e9}")?.number == -1)
        }
    }

    @Test func aThousandRandomKeysRoundTripThroughAReopen() async throws {
        try await withTemporaryFolder { folder in
            var generator = SeededRandomNumberGenerator(seed: 0x5EED)
            var keys: Set<String> = []
            while keys.count < 1_000 {
                let length = Int.random(in: 0...40, using: &generator)
                var scalars = String.UnicodeScalarView()
                for _ in 0..<length {
                    let ranges: [ClosedRange<UInt32>] = [
                        0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFD, 0x1_0000...0x1_FFFF,
                    ]
                    let range = ranges[Int.random(in: 0..<ranges.count, using: &generator)]
                    if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &generator)) {
                        scalars.append(scalar)
                    }
                }
                // An empty key is refused (anEmptyKeyIsRefusedByEveryCall); every other string is a key.
                if !scalars.isEmpty { keys.insert(String(scalars)) }
            }
            let fixture = Fixture(folder: folder)
            let ordered = keys.sorted()
            do {
                let store = try fixture.open()
                for (number, key) in ordered.enumerated() {
                    try store.setValue(Item(name: key, number: number), forKey: key)
                    if number % 100 == 0 { await Task.yield() }
                }
            }
            let store = try fixture.open()
            let sameKeys = store.sortedKeys() == ordered
            #expect(sameKeys)
            let items = try await store.getAll(IdsQuery(ordered))
            #expect(items.map(\.number) == Array(0..<ordered.count))
            let sameNames = items.map(\.name) == ordered
            #expect(sameNames)
            #expect(fixture.reports.all.isEmpty)
        }
    }

    @Test func aMissQuotesTheKeyAsTheOtherStoresDo() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixture(folder: folder).open()

            let error = await #expect(throws: StrataError.self) { try await store.get(KeyQuery("line\nbreak")) }

            #expect(error?.code == .notFound)
            #expect(error?.description == #"StrataError.notFound: No value for key "line\nbreak""#)
        }
    }

    @Test func anEmptyKeyIsRefusedByEveryCall() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixture(folder: folder).open()
            let item = Item(name: "a", number: 1)

            let errors = [
                await #expect(throws: StrataError.self) { try await store.put(item, in: KeyQuery("")) },
                await #expect(throws: StrataError.self) {
                    try await store.putAll([item, item], in: IdsQuery(["a", ""]))
                },
                #expect(throws: StrataError.self) { try store.setValue(item, forKey: "") },
                await #expect(throws: StrataError.self) { try await store.get(KeyQuery("")) },
                await #expect(throws: StrataError.self) { try await store.delete(KeyQuery("")) },
            ]

            for error in errors { #expect(error?.code == .invalidArgument) }
            // Nothing was stored, not even the valid key of the refused batch
            #expect(try store.value(forKey: "a") == nil)
        }
    }
}
