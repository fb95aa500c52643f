import Foundation
import Testing

@testable import StrataFile

struct ContentChecksumTests {
    private func checksum(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { ContentChecksum.checksum($0) }
    }

    @Test func checksummingInPiecesEqualsChecksummingAtOnce() {
        var generator = SeededGenerator(seed: 42)
        for length in [0, 1, 7, 63, 64, 65, 130, 1_000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let whole = checksum(bytes)
            for _ in 0..<20 {
                var checksum = ContentChecksum()
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + Int.random(in: 0...150, using: &generator))
                    bytes[offset..<end].withUnsafeBytes { checksum.update($0) }
                    offset = end
                }
                #expect(checksum.finalize() == whole, "length \(length)")
            }
        }
    }

    @Test func everySingleBitFlipChangesTheChecksum() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        let original = checksum(bytes)
        var seen: Set<UInt64> = [original]
        for position in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[position] ^= 1 << bit
                seen.insert(checksum(flipped))
            }
        }
        // Every flip gives its own checksum, different from the original's.
        #expect(seen.count == 1 + bytes.count * 8)
    }

    @Test func swappedOrMovedWordsAndTheLengthChangeTheChecksum() {
        let bytes = (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let original = checksum(bytes)
        // Two 32-bit halves of one lane swapped; two words of one lane (64 bytes apart) swapped.
        var halves = bytes
        halves.swapAt(0, 4)
        var words = bytes
        for offset in 0..<8 { words.swapAt(offset, 64 + offset) }
        // Top bits flipped in two words of one lane, in opposite directions.
        var topBits = bytes
        topBits[7] ^= 0x80
        topBits[64 + 7] ^= 0x80
        for changed in [halves, words, topBits] where changed != bytes {
            #expect(checksum(changed) != original)
        }
        // Zero padding of the last block is told apart by the length.
        #expect(
            Set([checksum([]), checksum([0]), checksum([0, 0]), checksum(Array(repeating: 0, count: 64))]).count == 4
        )
    }

    @Test func anEntryOfTheOlderTrailerVersionIsAMissAndIsRemoved() throws {
        // Given an entry whose trailer is intact but says version 1 (an xxHash64 content hash)
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore()
        try store?.setData(.pattern(1_000), forKey: "old")
        try store?.setData(.pattern(500, seed: 3), forKey: "new")
        store = nil
        let name = EntryName(key: "old").fileName
        let file = folder.storeURL().appendingPathComponent(name)
        var bytes = [UInt8](try Data(contentsOf: file))
        let trailerLength = bytes.withUnsafeBytes {
            Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt32.self)))
        }
        let start = bytes.count - 8 - trailerLength
        #expect(bytes[start] == EntryTrailer.version)
        bytes[start] = 1
        let checksum = bytes[start..<(bytes.count - 16)].withUnsafeBytes { XXHash64.hash($0) }
        withUnsafeBytes(of: checksum.littleEndian) {
            bytes.replaceSubrange((bytes.count - 16)..<(bytes.count - 8), with: $0)
        }
        try Data(bytes).write(to: file)

        // When the store opens, then the old entry is a miss, removed and counted, and the other entry stays
        let reopened = try folder.makeStore()
        #expect(reopened.data(forKey: "old") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(reopened.corruptEntriesRemoved == 1)
        #expect(reopened.data(forKey: "new") == .pattern(500, seed: 3))
    }
}
