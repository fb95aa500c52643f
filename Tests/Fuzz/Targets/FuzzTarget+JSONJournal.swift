#if DEBUG
    import Foundation
    @testable import StrataJSONFile

    extension FuzzTarget {
        /// Replays the input as an index journal, then again with a valid checksum on every line after the header
        /// (so the fuzzer reaches the record parser); whatever replays survives a snapshot and a second replay, and
        /// no entry's size is negative or larger than the store writes.
        static func jsonJournal(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            try replayJournal(Data(bytes), input: bytes)
            try replayJournal(sealingLines(bytes), input: bytes)
        }

        private static func replayJournal(_ data: Data, input: UnsafeRawBufferPointer) throws(FuzzFailure) {
            guard let replay = try? IndexJournal.replay(data) else { return }
            try expect(
                replay.records.count <= replay.recordCount,
                "\(replay.records.count) entries from \(replay.recordCount) records",
                input: input
            )
            try expect(
                replay.records.values.allSatisfy { (0...JSONFileStorage.maximumFileSize).contains($0.size ?? 0) },
                "an entry size outside 0...\(JSONFileStorage.maximumFileSize)",
                input: input
            )
            let again: IndexJournal.Replay
            do {
                again = try IndexJournal.replay(IndexJournal.snapshot(of: replay.records))
            } catch {
                throw FuzzFailure("the snapshot of a replayed journal does not replay: \(error)", input: input)
            }
            try expect(
                again.records.count == replay.records.count
                    && again.records.allSatisfy { key, record in replay.records[key].map { same(record, $0) } ?? false },
                "the snapshot replays to other entries",
                input: input
            )
        }

        /// The input with ` <checksum>` appended to every complete line after the first.
        private static func sealingLines(_ bytes: UnsafeRawBufferPointer) -> Data {
            var sealed = Data()
            var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
            let tornTail = lines.removeLast()
            for (number, line) in lines.enumerated() {
                sealed.append(contentsOf: line)
                if number > 0 { sealed.append(contentsOf: Array(" \(IndexJournal.checksum(line))".utf8)) }
                sealed.append(0x0A)
            }
            sealed.append(contentsOf: tornTail)
            return sealed
        }

        /// Record equality where NaN equals NaN: a journal may carry `nan` as a time.
        private static func same(_ a: IndexRecord, _ b: IndexRecord) -> Bool {
            func same(_ x: Double?, _ y: Double?) -> Bool {
                guard let x, let y else { return x == nil && y == nil }
                return x == y || (x.isNaN && y.isNaN)
            }
            return a.sequence == b.sequence && same(a.storedAt, b.storedAt) && same(a.maxAge, b.maxAge)
                && same(a.freshUntil, b.freshUntil) && a.tags == b.tags && a.size == b.size
        }
    }
#endif
