import Foundation

/// What one file of the outbox's store holds: a record, or — for an intact JSON file that is not one (written by
/// something else, or by a future layout) — why it could not be read.
///
/// Decoding never fails, so one foreign file cannot make the whole outbox unreadable: it becomes a set-aside
/// item instead.
enum OutboxFile: Codable, Sendable {
    /// A record.
    case record(PendingWrite)
    /// A file that is not a record: its sequence number when it still says one, and why.
    case unreadable(UInt64?, String)

    /// The one field read from a file that is not a whole record.
    private enum SequenceKey: String, CodingKey {
        /// The record's sequence number.
        case sequence
    }

    /// Decodes a record, or keeps the reason it is not one (and its sequence number, when it has one).
    init(from decoder: any Decoder) throws {
        do {
            self = .record(try PendingWrite(from: decoder))
        } catch {
            let sequence = try? decoder.container(keyedBy: SequenceKey.self).decode(UInt64.self, forKey: .sequence)
            self = .unreadable(sequence, "not an outbox record: \(error)")
        }
    }

    /// Encodes the record; an unreadable file is never written back.
    func encode(to encoder: any Encoder) throws {
        switch self {
        case .record(let record): try record.encode(to: encoder)
        case .unreadable(_, let reason):
            throw EncodingError.invalidValue(reason, .init(codingPath: [], debugDescription: "unreadable record"))
        }
    }
}
