#if DEBUG
    import Foundation
    import Strata
    @testable import StrataCache

    extension FuzzTarget {
        /// Decodes the input as a BlobCache freshness record: a record decoded from any bytes re-encodes into one
        /// that decodes, and every question the cache asks of it (its windows, as durations and as dates) answers
        /// without trapping.
        static func freshnessRecord(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            guard let record = FreshnessRecord.decode(Data(bytes)) else { return }
            try expect(
                FreshnessRecord.decode(record.encoded()) != nil,
                "the record \(record) does not decode from its own encoding",
                input: bytes
            )
            let lifetime = Duration.seconds(record.lifetime)
            _ = record.revalidationWindow
            for now in [record.freshUntil, .distantPast, .distantFuture, record.freshUntil + lifetime.timeInterval] {
                _ = record.servesWhileRevalidating(at: now)
                _ = record.servesIfError(at: now)
            }
        }
    }
#endif
