import Foundation
import Strata
import StrataJSONFile
import StrataOffline
import Testing

/// An outbox's records shown as the outbox treats them when it opens.
struct OutboxRecordToolTests {
    /// Before, a record numbered otherwise than its file was listed as a sound pending write (the outbox never
    /// replays it), and a record with a defect as pending and not set aside (the outbox sets it aside).
    @Test func recordsAreShownAsTheOutboxJudgesThem() async throws {
        // Given an outbox with two sound writes, a third with no key and a fourth numbered 99 in the file of 4
        let folder = try TemporaryFolder()
        let outbox = try await OutboxToolTests.outbox(in: folder)
        do {
            let records = try JSONFileDataSource<PendingWrite>(
                folder: URL(fileURLWithPath: outbox).appendingPathComponent("records")
            )
            let now = Date()
            try records.setValue(
                PendingWrite(
                    sequence: 3,
                    key: "",
                    operation: .put,
                    value: Data("x".utf8),
                    idempotencyKey: "i3",
                    createdAt: now
                ),
                forKey: "00000000000000000003"
            )
            try records.setValue(
                PendingWrite(
                    sequence: 99,
                    key: "c",
                    operation: .put,
                    value: Data("y".utf8),
                    idempotencyKey: "i4",
                    createdAt: now
                ),
                forKey: "00000000000000000004"
            )
        }

        // When the outbox is inspected
        let run = try await strata("inspect", outbox, "--json")

        // Then the keyless record is set aside, and the misnumbered one is unreadable, with no write
        #expect(run.status == 0, "\(run.errors)")
        let json = try run.json()
        let entries = try #require(json["entries"] as? [[String: Any]])
        let byKey = Dictionary(
            uniqueKeysWithValues: entries.compactMap { entry in (entry["key"] as? String).map { ($0, entry) } }
        )
        let keyless = try #require(byKey["00000000000000000003"]?["write"] as? [String: Any])
        #expect(keyless["setAside"] as? Bool == true)
        #expect((keyless["lastError"] as? String)?.contains("names no key") == true, "\(keyless)")
        let misnumbered = try #require(byKey["00000000000000000004"])
        #expect(misnumbered["write"] == nil || misnumbered["write"] is NSNull, "\(misnumbered)")
        #expect((misnumbered["problem"] as? String)?.contains("numbered 99") == true, "\(misnumbered)")
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["count"] as? Int == 3)
        #expect(summary["unreadable"] as? Int == 1)
        #expect(summary["damaged"] as? Int == 0)
        let table = try await strata("inspect", outbox)
        #expect(table.output.split(separator: "\n").contains { $0.contains("set aside") })
    }
}
