import Foundation
import Strata
import StrataFile
import StrataTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fuzz-style hostile input with a fixed seed: random keys of any bytes and length, and random files dropped
/// into the store's folder. Never a crash, never a path outside the folder, damaged entries reported.
struct ReliabilityFileHostileInputTests {
    static let keyCount = 2_000
    static let droppedFiles = 300

    /// A random key: any bytes (decoded as UTF-8, so invalid sequences become U+FFFD), any length up to 4 KiB.
    static func randomKey(using generator: inout SeededRandomNumberGenerator) -> String {
        let length =
            Int.random(in: 0...100, using: &generator) < 95
            ? Int.random(in: 0...48, using: &generator) : Int.random(in: 49...4_096, using: &generator)
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func randomKeysAndRandomFilesInTheFolderNeverBreakTheStore() async throws {
        // Given a store holding values under random keys
        var generator = SeededRandomNumberGenerator(seed: 0xF022)
        let folder = try TemporaryFolder()
        var model: [String: Data] = [:]
        do {
            let store = try folder.makeStore()
            for index in 0..<Self.keyCount {
                let key = Self.randomKey(using: &generator)
                let data = Data.pattern(Int.random(in: 0...64, using: &generator), seed: UInt8(index & 0xFF))
                // An empty key is refused (FileDataSourceKeyTests); every other string is a key.
                if key.isEmpty { continue }
                try store.setValue(data, forKey: key)
                model[key] = data
                if index % 100 == 0 { await Task.yield() }
            }
            #expect(store.count == model.count)
            store.flush()
        }

        // When random files appear in the store's folder: random names, names that look like entries, and
        // entries overwritten with random bytes
        let storeFolder = folder.storeURL()
        var entries = try folder.entryFiles()
        var damaged = Set<String>()
        for index in 0..<Self.droppedFiles {
            let contents = Data(
                (0..<Int.random(in: 0...600, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            )
            let name: String
            switch index % 4 {
            case 0:
                let hex = (0..<32).map { _ in "0123456789abcdef".randomElement(using: &generator) ?? "0" }
                name = String(hex) + ".strata"
            case 1 where !entries.isEmpty:
                name = entries.remove(at: Int.random(in: 0..<entries.count, using: &generator))
                damaged.insert(name)
            case 2: name = ".strata-tmp-\(index)"
            default:
                let scalars = (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                    Character(Unicode.Scalar(UInt8.random(in: 0x21...0x7E, using: &generator)))
                }
                name = String(scalars).replacingOccurrences(of: "/", with: "_")
                if name == "." || name == ".." { continue }
            }
            // Without fsync (`Data.write` syncs every file on Linux): the junk only has to exist.
            #expect(Self.writeWithoutSync(contents, to: storeFolder.appendingPathComponent(name).path))
        }

        // Then the store opens, every overwritten entry is a miss (and counted), every other entry is whole,
        // and nothing exists outside the store's folder
        let store = try folder.makeStore()
        #expect(store.corruptEntriesRemoved >= damaged.count)
        var intact = 0
        for (index, (key, data)) in model.enumerated() {
            if let read = store.value(forKey: key) {
                #expect(read == data, "a random key read back wrong")
                intact += 1
            }
            if index % 100 == 0 { await Task.yield() }
        }
        #expect(intact == model.count - damaged.count)
        #expect(store.count == intact)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["store"])
        // And the store still works with the junk beside it
        try store.setValue(Data("fine".utf8), forKey: "after")
        try store.removeExpired()
        #expect(store.value(forKey: "after") == Data("fine".utf8))
    }

    /// Writes a file with plain POSIX calls, without `fsync`.
    static func writeWithoutSync(_ data: Data, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) == $0.count }
    }
}
