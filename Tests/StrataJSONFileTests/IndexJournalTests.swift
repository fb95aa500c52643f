import Foundation
import Testing

@testable import StrataJSONFile

struct IndexJournalTests {
    private func journal(_ records: [JournalRecord]) -> Data {
        var data = Data((IndexJournal.header + "\n").utf8)
        for record in records { data.append(IndexJournal.line(for: record)) }
        return data
    }

    @Test func everyKindOfRecordAndKeyReplays() throws {
        // Keys of every length modulo 3 (each base64 padding), empty, non-ASCII and with spaces.
        let keys = ["", "a", "ab", "abc", "abcd", "key with spaces", "é", "e\u{301}", "🦊🔥", "line\nbreak", "\u{0}"]
        var records: [JournalRecord] = []
        for (index, key) in keys.enumerated() {
            let maxAge: Double? = index.isMultiple(of: 2) ? nil : Double(index) + 0.5
            records.append(
                .put(key: key, record: IndexRecord(storedAt: 1_750_000_000.25, maxAge: maxAge, sequence: UInt64(index)))
            )
        }
        records.append(.touch(key: "abc", sequence: 100))
        records.append(.remove(key: "ab"))

        let replay = try IndexJournal.replay(journal(records))

        #expect(replay.recordCount == records.count)
        #expect(replay.maxSequence == 100)
        #expect(replay.records.count == Set(keys).count - 1)  // "é" and "e\u{301}" are one Swift key
        #expect(replay.records["ab"] == nil)
        #expect(replay.records["abc"]?.sequence == 100)
        #expect(replay.records["abcd"] == IndexRecord(storedAt: 1_750_000_000.25, maxAge: nil, sequence: 4))
        #expect(replay.records["key with spaces"] == IndexRecord(storedAt: 1_750_000_000.25, maxAge: 5.5, sequence: 5))
        #expect(replay.records["🦊🔥"]?.sequence == 8)
        #expect(replay.records[""]?.sequence == 0)
    }

    @Test func tagsRoundTripWithAndWithoutAFreshnessDate() throws {
        let tagged = IndexRecord(storedAt: 1, maxAge: nil, sequence: 1, tags: ["team:7", "user:1"])
        let taggedFresh = IndexRecord(storedAt: 2, maxAge: 60, sequence: 2, freshUntil: 62, tags: ["team:7"])

        let replay = try IndexJournal.replay(
            journal([.put(key: "a", record: tagged), .put(key: "b", record: taggedFresh)])
        )

        #expect(replay.records["a"] == tagged)
        #expect(replay.records["b"] == taggedFresh)
    }

    @Test func aFreshnessDateRoundTripsAndALineWithoutOneStillReads() throws {
        // A put with a freshness date gains one field; a put without one is written as before the field existed
        let fresh = IndexRecord(storedAt: 1_750_000_000.25, maxAge: 60, sequence: 1, freshUntil: 1_750_000_060.5)
        let plain = IndexRecord(storedAt: 1_750_000_000.25, maxAge: nil, sequence: 2)
        let plainLine = String(decoding: IndexJournal.line(for: .put(key: "b", record: plain)), as: UTF8.self)
        #expect(plainLine.split(separator: " ").count == 6)  // letter, four fields, checksum

        let replay = try IndexJournal.replay(journal([.put(key: "a", record: fresh), .put(key: "b", record: plain)]))

        #expect(replay.records["a"] == fresh)
        #expect(replay.records["b"] == plain)
        #expect(replay.records["b"]?.freshUntil == nil)
        let snapshot = try IndexJournal.replay(IndexJournal.snapshot(of: replay.records))
        #expect(snapshot.records == replay.records)
    }

    @Test func aSizeRoundTripsWithOrWithoutAFreshnessDateAndTags() throws {
        let records = [
            IndexRecord(storedAt: 1, maxAge: nil, sequence: 1, size: 0),
            IndexRecord(storedAt: 2, maxAge: 60, sequence: 2, freshUntil: 62, size: 120),
            IndexRecord(storedAt: 3, maxAge: nil, sequence: 3, tags: ["team:7"], size: JSONFileStorage.maximumFileSize),
            IndexRecord(storedAt: 4, maxAge: 1, sequence: 4, freshUntil: 5, tags: ["a", "b"], size: 7),
        ]
        let puts = records.enumerated().map { JournalRecord.put(key: "k\($0.offset)", record: $0.element) }

        let replay = try IndexJournal.replay(journal(puts))

        #expect(replay.records.count == records.count)
        for (offset, record) in records.enumerated() { #expect(replay.records["k\(offset)"] == record) }
        let plain = String(decoding: IndexJournal.line(for: puts[0]), as: UTF8.self)
        #expect(plain.hasPrefix("P 1 1.0 - azA= - - 0 "))  // absent freshness date and tags written as "-"
    }

    @Test(arguments: [
        "P 1 2.0 - a2V5 0000000g",  // checksum digit out of range
        "P 1 2.0 - a2V5 0000000",  // checksum too short
        "P x 2.0 - a2V5 ",  // (checksum filled in below) sequence not a number
        "P 1 2.0 - a2V ",  // base64 not a multiple of four
        "P 1 2.0 - a=V5 ",  // padding in the middle
        "P 1 2.0 - /w== ",  // not UTF-8 (0xFF)
        "T 1 ",  // too few fields
        "X 1 a2V5 ",  // unknown kind
        "P 1 2.0 - a2V5 extra ",  // a freshness date that is not a number
        "P 1 2.0 - a2V5 3.0 4.0 ",  // tags that do not decode (`4.0`)
        "P 1 2.0 - a2V5 - - 1073741825 ",  // a size larger than any entry file the store writes
        "P 1 2.0 - a2V5 - - -1 ",  // a size that is not a number
        "P 1 2.0 - a2V5 - - 99999999999999999999999 ",  // a size past any integer
        "P 1 2.0 - a2V5 - - 1 2 ",  // too many fields
    ])
    func aDamagedRecordIsAParseError(_ line: String) {
        var text = line
        if text.hasSuffix(" ") {
            text += IndexJournal.checksum(Array(line.dropLast().utf8))
        }
        let data = Data((IndexJournal.header + "\n" + text + "\n").utf8)
        #expect(throws: IndexJournal.ParseError.self) { try IndexJournal.replay(data) }
    }
}
