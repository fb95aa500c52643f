import Foundation
import Strata
import StrataFile
import StrataTesting
import Testing

struct FileDataSourceSafetyTests {
    static let hostileKeys = [
        "../../etc/passwd", "/etc/passwd", "..", ".", "a/b/c", "nul\u{0}byte", "\u{0}",
        String(repeating: "k", count: 10_240), "🦊🔥👩‍👩‍👧", "Key", "key", "KEY", "C:\\Windows\\win.ini",
        ".strata-index", ".strata-lock", "line\nbreak", "e\u{301}", "é",
    ]

    @Test func hostileKeysStayInsideTheFolderAndDoNotCollide() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()

        for (index, key) in Self.hostileKeys.enumerated() {
            try store.setValue(Data("value \(index)".utf8), forKey: key)
        }

        // The key rule: "e\u{301}" and "é" are one key (canonical equivalence), the last write wins.
        let last = Self.hostileKeys.count - 1
        for (index, key) in Self.hostileKeys.enumerated() {
            let expected = key == "é" ? last : index
            #expect(store.value(forKey: key) == Data("value \(expected)".utf8), "key \(index)")
        }
        #expect(store.count == Self.hostileKeys.count - 1)
        #expect(try folder.entryFiles().count == Self.hostileKeys.count - 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["store"])
    }

    @Test func randomKeysNeverEscapeOrCollide() async throws {
        var generator = SeededRandomNumberGenerator(seed: 0x5EED)
        var keys = Set<[UInt8]>()
        var strings: [String] = []
        while strings.count < 2_000 {
            let length = Int.random(in: 0...64, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let key = String(decoding: bytes, as: UTF8.self)
            // An empty key is refused (FileDataSourceKeyTests); every other string is a key.
            if !key.isEmpty, keys.insert(Array(key.utf8)).inserted { strings.append(key) }
        }
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()

        for (index, key) in strings.enumerated() {
            try store.setValue(Data(String(index).utf8), forKey: key)
            // Synchronous writes: let other tests run now and then on the small cooperative pool.
            if index % 100 == 0 { await Task.yield() }
        }

        #expect(store.count == 2_000)
        #expect(try folder.entryFiles().count == 2_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["store"])
        for (index, key) in strings.enumerated() where store.value(forKey: key) != Data(String(index).utf8) {
            Issue.record("key \(index) read back wrong")
        }
    }

    enum Damage: String, CaseIterable, Sendable {
        case flippedDataByte, flippedTrailerByte, truncated, extended, garbage, empty, anotherKeysFile

        func apply(to file: URL, folder: TemporaryFolder, store: FileDataSource?) throws {
            var bytes = try Data(contentsOf: file)
            switch self {
            case .flippedDataByte: bytes[10] ^= 0x01
            case .flippedTrailerByte: bytes[bytes.count - 30] ^= 0x40
            case .truncated: bytes = bytes.prefix(bytes.count - 5)
            case .extended: bytes.append(contentsOf: [1, 2, 3])
            case .garbage: bytes = Data(repeating: 0xAB, count: 500)
            case .empty: bytes = Data()
            case .anotherKeysFile:
                let other = try #require(try folder.entryFiles().first { $0 != file.lastPathComponent })
                bytes = try Data(contentsOf: folder.storeURL().appendingPathComponent(other))
            }
            try bytes.write(to: file)
        }
    }

    private func damagedFile(_ folder: TemporaryFolder, store: FileDataSource) throws -> URL {
        try store.setValue(.pattern(2_000, seed: 7), forKey: "other")
        let before = Set(try folder.entryFiles())
        try store.setValue(.pattern(1_000), forKey: "victim")
        let name = try #require(Set(try folder.entryFiles()).subtracting(before).first)
        return folder.storeURL().appendingPathComponent(name)
    }

    @Test(arguments: Damage.allCases)
    func aDamagedEntryIsAMissRemovedAndCounted(_ damage: Damage) throws {
        // Given an entry whose file is damaged while the store is open
        let log = DiagnosticsLog()
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(diagnostics: { log.record($0) })
        let file = try damagedFile(folder, store: store)
        try damage.apply(to: file, folder: folder, store: store)

        // When it is read
        let value = store.value(forKey: "victim")

        // Then it is a miss, its file is gone, and the damage is counted and reported
        #expect(value == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(store.corruptEntriesRemoved == 1)
        #expect(log.messages.count == 1)
        #expect(store.value(forKey: "other") == .pattern(2_000, seed: 7))
        #expect(store.count == 1)
    }

    @Test(arguments: Damage.allCases)
    func aDamagedEntryFoundAtOpenIsAMissRemovedAndCounted(_ damage: Damage) throws {
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore()
        let file = try damagedFile(folder, store: try #require(store))
        store = nil
        try damage.apply(to: file, folder: folder, store: nil)

        let reopened = try folder.makeStore()

        #expect(reopened.value(forKey: "victim") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(reopened.corruptEntriesRemoved == 1)
        #expect(reopened.value(forKey: "other") == .pattern(2_000, seed: 7))
    }

    @Test func aFolderAtAnEntryNameIsSetAsideNotDeletedAndThePutSucceeds() throws {
        // Given a store where one entry's file name is taken by a folder with a file of the user's in it
        let folder = try TemporaryFolder()
        let log = DiagnosticsLog()
        let store = try folder.makeStore(diagnostics: log.record)
        try store.setValue(Data("safe".utf8), forKey: "safe")
        let before = Set(try folder.entryFiles())
        try store.setValue(Data("x".utf8), forKey: "blocked")
        let blockedName = try #require(Set(try folder.entryFiles()).subtracting(before).first)
        try store.removeValue(forKey: "blocked")
        let blocker = folder.storeURL().appendingPathComponent(blockedName)
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        try Data("inside".utf8).write(to: blocker.appendingPathComponent("file"))

        // When writing that entry
        try store.setValue(Data("new".utf8), forKey: "blocked")

        // Then the folder was set aside with its contents, reported, and every entry reads back
        #expect(store.value(forKey: "safe") == Data("safe".utf8))
        #expect(store.value(forKey: "blocked") == Data("new".utf8))
        #expect(store.count == 2)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
        let aside = try #require(names.first { $0.hasPrefix(blockedName + ".damaged-") })
        let kept = folder.storeURL().appendingPathComponent(aside).appendingPathComponent("file")
        #expect(try Data(contentsOf: kept) == Data("inside".utf8))
        #expect(log.messages.count == 1)
        #expect(names.filter { $0.hasPrefix(".strata-tmp-") }.isEmpty)
    }

    @Test func aRemovedFolderGivesIOErrorsAndMissesNotCrashes() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(Data("a".utf8), forKey: "a")
        try FileManager.default.removeItem(at: folder.storeURL())

        #expect {
            try store.setValue(Data("b".utf8), forKey: "b")
        } throws: { ($0 as? StrataError)?.code == .io }
        #expect(store.value(forKey: "a") == nil)
        #expect(store.count == 0)
        #expect(store.corruptEntriesRemoved == 0)
    }
}

struct FileDataSourceVerificationTests {
    @Test func withoutContentVerificationTruncationIsStillCaught() throws {
        let folder = try TemporaryFolder()
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "store", verifiesContent: false)
        )
        try store.setValue(.pattern(1_000), forKey: "k")
        let file = folder.storeURL().appendingPathComponent(try #require(try folder.entryFiles().first))
        try Data(contentsOf: file).prefix(900).write(to: file)

        #expect(store.value(forKey: "k") == nil)
        #expect(store.corruptEntriesRemoved == 1)
    }
}
