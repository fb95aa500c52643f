import Foundation

/// Deterministic bytes: byte `i` is `i × 31 + seed` (wrapping).
package func pattern(count: Int, seed: UInt8 = 7) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}
