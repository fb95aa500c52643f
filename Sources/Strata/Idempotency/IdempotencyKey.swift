/// The idempotency key of the write in progress: a unique string that names one logical write, so that a source
/// given the same write twice (a replay after a crash or a lost response) applies it once.
///
/// The offline outbox (StrataOffline) binds it around every write it sends to main — the first attempt and each
/// replay of it carry the same key. A source of your own reads it while it writes; the HTTP data sources of
/// StrataNetwork send it as the `Idempotency-Key` header:
///
/// ```swift
/// struct NotesAPI: PutDataSource {
///     let database: NotesDatabase
///
///     func put(_ note: Note, in query: any Query) async throws -> Note {
///         try await database.upsert(note, requestID: IdempotencyKey.current)
///     }
///
///     func putAll(_ notes: [Note], in query: any Query) async throws -> [Note] {
///         try await database.upsert(notes, requestID: IdempotencyKey.current)
///     }
/// }
/// ```
public enum IdempotencyKey: Sendable {
    /// The key of the write the current task is making, or `nil` outside such a write.
    @TaskLocal public static var current: String?

    /// The HTTP header that carries the key: `Idempotency-Key`.
    public static let headerName = "Idempotency-Key"
}
