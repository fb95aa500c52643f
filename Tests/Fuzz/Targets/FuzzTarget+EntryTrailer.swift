#if DEBUG
    import Foundation
    import StrataSupport
    @testable import StrataFile

    extension FuzzTarget {
        /// Parses the input as a trailer, then again with its valid checksum appended (so the fuzzer reaches the
        /// field parser), and finds a footer in its last bytes; a parsed trailer's encoding is a fixed point.
        static func entryTrailer(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            _ = EntryTrailer.trailerLength(footer: bytes)
            try parseTrailer(bytes, input: bytes)
            var sealed = Array(bytes)
            withUnsafeBytes(of: XXHash64.hash(bytes).littleEndian) { sealed.append(contentsOf: $0) }
            let result: Result<Void, FuzzFailure> = sealed.withUnsafeBytes { buffer in
                Result { () throws(FuzzFailure) in try parseTrailer(buffer, input: bytes) }
            }
            try result.get()
        }

        private static func parseTrailer(
            _ trailer: UnsafeRawBufferPointer,
            input: UnsafeRawBufferPointer
        ) throws(FuzzFailure) {
            guard let parsed = EntryTrailer(bytes: trailer) else { return }
            let encoded: [UInt8]
            do {
                encoded = try parsed.encoded()
            } catch {
                throw FuzzFailure("a parsed trailer is refused by its encoding: \(error)", input: input)
            }
            let body = encoded.dropLast(EntryTrailer.footerLength - 8)
            try expect(
                encoded.withUnsafeBytes { EntryTrailer.trailerLength(footer: $0) } == body.count,
                "the footer of an encoded trailer does not give its length",
                input: input
            )
            let reencoded = try? Array(body).withUnsafeBytes { EntryTrailer(bytes: $0) }?.encoded()
            try expect(reencoded == encoded, "an encoded trailer does not parse back to itself", input: input)
        }
    }
#endif
