#if DEBUG
    import Foundation
    import StrataSupport
    @testable import StrataFile

    extension FuzzTarget {
        /// Decodes the input as a file store's access journal (`.strata-index`), then again sealed — the input's
        /// whole records behind a right header and followed by their checksum, so the fuzzer reaches the record
        /// checks. A decoded journal keeps no sequence the store would not hand out and no time that is not a
        /// finite number, and encoding what was decoded decodes to the same records.
        static func accessJournal(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            try decodeJournal(Array(bytes), input: bytes)
            let recordCount = bytes.count / 32
            var sealed: [UInt8] = []
            withUnsafeBytes(of: UInt32(0x4A52_5453).littleEndian) { sealed.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt32(recordCount).littleEndian) { sealed.append(contentsOf: $0) }
            sealed.append(contentsOf: bytes.prefix(recordCount * 32))
            let checksum = sealed.withUnsafeBytes { XXHash64.hash($0) }
            withUnsafeBytes(of: checksum.littleEndian) { sealed.append(contentsOf: $0) }
            let records = try decodeJournal(sealed, input: bytes)
            try expect(records.count <= recordCount, "more records than the journal holds", input: bytes)
        }

        @discardableResult
        private static func decodeJournal(
            _ journal: [UInt8],
            input: UnsafeRawBufferPointer
        ) throws(FuzzFailure) -> [EntryName: AccessJournal.Record] {
            let records = AccessJournal.decode(journal)
            for record in records.values {
                try expect(
                    record.accessSequence < EntryTrailer.openingSequenceLimit,
                    "a sequence no store opens with was kept",
                    input: input
                )
                try expect(
                    record.lastAccess.timeIntervalSince1970.isFinite,
                    "a last access that is not a finite time was kept",
                    input: input
                )
            }
            let encoded = AccessJournal.encode(records.map { (name: $0.key, record: $0.value) })
            try expect(
                AccessJournal.decode(encoded) == records,
                "decoded records do not survive encoding",
                input: input
            )
            return records
        }
    }
#endif
