#if DEBUG
    import Foundation
    @testable import StrataOffline

    /// Any JSON value, read and ignored: decodes exactly when the decoder takes its input for JSON.
    private struct AnyJSON: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    extension FuzzTarget {
        /// Decodes the input as an outbox file, as the outbox's JSON store reads one (`OutboxFile`, a plain
        /// `JSONDecoder`): any JSON decodes (a file that is not a record is unreadable, with the number it still
        /// says), a record written again (a plain `JSONEncoder`, as the store writes) reads back as itself, and the
        /// input read as a store key names a sequence number only when it is that number's key.
        static func outboxRecord(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            let data = Data(bytes)
            let file: OutboxFile
            do {
                file = try JSONDecoder().decode(OutboxFile.self, from: data)
            } catch {
                // The store sets aside a file that holds no JSON at all; any JSON must become a record or an
                // unreadable file, so that one foreign file cannot make the whole outbox unreadable.
                // JSON as the store's own decoder reads it (`JSONSerialization` takes `4\0\0` for JSON).
                let isJSON = (try? JSONDecoder().decode(AnyJSON.self, from: data)) != nil
                try expect(!isJSON, "JSON that is neither a record nor unreadable: \(error)", input: bytes)
                return
            }
            if case .record(let record) = file { try Self.writtenAgain(record, input: bytes) }
            let text = String(decoding: bytes, as: UTF8.self)
            if let sequence = PendingWrite.sequence(ofStoreKey: text) {
                try expect(
                    PendingWrite.storeKey(sequence) == text,
                    "the store key \(text) names \(sequence), whose key is \(PendingWrite.storeKey(sequence))",
                    input: bytes
                )
            }
        }

        /// Checks that `record`, written as the store writes it, reads back as itself with the same defect, and that
        /// its sequence number's store key names it.
        private static func writtenAgain(_ record: PendingWrite, input bytes: UnsafeRawBufferPointer)
            throws(FuzzFailure)
        {
            let written: Data
            do {
                written = try JSONEncoder().encode(OutboxFile.record(record))
            } catch {
                throw FuzzFailure("a record that cannot be written again: \(error)", input: bytes)
            }
            let read = try? JSONDecoder().decode(OutboxFile.self, from: written)
            guard case .record(let again)? = read else {
                throw FuzzFailure("a record written again reads as \(String(describing: read))", input: bytes)
            }
            try expect(again == record, "a record written again reads as \(again), not \(record)", input: bytes)
            try expect(again.defect == record.defect, "a record's defect changed when written again", input: bytes)
            let key = PendingWrite.storeKey(record.sequence)
            try expect(
                PendingWrite.sequence(ofStoreKey: key) == record.sequence,
                "the store key \(key) does not name \(record.sequence)",
                input: bytes
            )
        }
    }
#endif
