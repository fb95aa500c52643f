import Foundation
import Strata
import StrataSupport
import Testing

struct XXHash64Tests {
    @Test(arguments: [
        ("", UInt64(0xEF46_DB37_51D8_E999)),
        ("a", UInt64(0xD24E_C4F1_A98C_6E5B)),
        ("abc", UInt64(0x44BC_2CF5_AD77_0999)),
    ])
    func matchesTheReferenceImplementation(_ input: String, _ expected: UInt64) {
        let hash = Array(input.utf8).withUnsafeBytes { XXHash64.hash($0) }
        #expect(hash == expected)
    }

    @Test func hashingInPiecesEqualsHashingAtOnce() {
        var generator = SeededRandomNumberGenerator(seed: 42)
        let bytes = (0..<1_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let whole = bytes.withUnsafeBytes { XXHash64.hash($0, seed: 7) }
        for _ in 0..<50 {
            var hasher = XXHash64(seed: 7)
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + Int.random(in: 0...70, using: &generator))
                bytes[offset..<end].withUnsafeBytes { hasher.update($0) }
                offset = end
            }
            #expect(hasher.finalize() == whole)
        }
    }
}
