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

    /// Values written by version 2 trailers: the on-disk format, whatever path computes them.
    @Test func theChecksumKeepsItsOnDiskValues() {
        let expected: [(length: Int, checksum: UInt64)] = [
            (0, 0x0), (5, 0xC2C_A0D1_AFA4_452E), (64, 0x239B_EC06_6662_4BF8), (1_000, 0x7250_B24E_A855_BF9F),
            (100_003, 0xC7DC_A178_B8F7_78AA), ((1 << 20) + 37, 0x226C_B7B2_1BC9_B3AD),
        ]
        for (length, value) in expected {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: ($0 &* 131 &+ 17) ^ ($0 >> 9)) }
            #expect(checksum(bytes) == value, "length \(length)")
            var rounds = ContentChecksum(usesKernel: false)
            bytes.withUnsafeBytes { rounds.update($0) }
            #expect(rounds.finalize() == value, "length \(length), Swift rounds")
        }
    }

    /// The vector kernel (where the processor has it) and the Swift rounds agree on any data, any length,
    /// any split into pieces, and on the worst case for the sums (every bit set).
    @Test func theVectorKernelAndTheSwiftRoundsAgree() {
        var generator = SeededGenerator(seed: 0xC0FFEE)
        var cases: [[UInt8]] = [Array(repeating: 0xFF, count: 256 << 10), Array(repeating: 0, count: 4_096)]
        for _ in 0..<40 {
            let length = Int.random(in: 0...40_000, using: &generator)
            cases.append((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        for bytes in cases {
            var rounds = ContentChecksum(usesKernel: false)
            bytes.withUnsafeBytes { rounds.update($0) }
            let reference = rounds.finalize()
            var pieces = ContentChecksum()
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + Int.random(in: 0...5_000, using: &generator))
                bytes[offset..<end].withUnsafeBytes { pieces.update($0) }
                offset = end
            }
            #expect(checksum(bytes) == reference, "length \(bytes.count)")
            #expect(pieces.finalize() == reference, "length \(bytes.count), in pieces")
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
        try store?.setValue(.pattern(1_000), forKey: "old")
        try store?.setValue(.pattern(500, seed: 3), forKey: "new")
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
        #expect(reopened.value(forKey: "old") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(reopened.corruptEntriesRemoved == 1)
        #expect(reopened.value(forKey: "new") == .pattern(500, seed: 3))
    }
}
