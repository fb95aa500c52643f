#if DEBUG
    import Foundation
    @testable import StrataJSONFile

    extension FuzzTarget {
        /// Opens the input as a JSON entry file (its checksum line told apart from damage), then seals it: the
        /// JSON's range lies within the file, and a sealed input opens as sealed, with the input as its JSON.
        static func jsonEntry(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            switch EntrySeal.open(bytes) {
            case .sealed(let range), .legacy(let range):
                try expect(range.upperBound <= bytes.count, "a JSON range \(range) past the file", input: bytes)
            case .damaged:
                break
            }
            let sealed = Array(bytes) + EntrySeal.trailer(for: bytes)
            let reopened = sealed.withUnsafeBytes { EntrySeal.open($0) }
            try expect(reopened == .sealed(0..<bytes.count), "a sealed entry opens as \(reopened)", input: bytes)
        }
    }
#endif
