/// A read's answer that says, by its metadata, whether it may be stored (``EntryMetadata/isStorable``): one that may
/// not is never handed to a caller other than the one whose call read it (``CoalescingPlugin``).
protocol StorableAnswer {
    /// Whether the answer may be stored: every entry's ``EntryMetadata/isStorable``.
    var isStorableAnswer: Bool { get }
}

/// Whether `answer` may go to another caller than the one whose call read it: `false` only for an answer whose
/// metadata says it must not be stored (``StorableAnswer``); a value without metadata cannot tell, and may.
///
/// - Parameter answer: What a read returned.
func isShareableAnswer(_ answer: any Sendable) -> Bool {
    (answer as? any StorableAnswer)?.isStorableAnswer ?? true
}

extension StoredEntry: StorableAnswer {
    var isStorableAnswer: Bool { metadata.isStorable }
}

extension Array: StorableAnswer where Element: StorableAnswer {
    var isStorableAnswer: Bool { allSatisfy(\.isStorableAnswer) }
}

extension ConditionalRead: StorableAnswer {
    var isStorableAnswer: Bool {
        switch self {
        case .modified(let entry): entry.metadata.isStorable
        case .notModified(let metadata): metadata.isStorable
        }
    }
}
