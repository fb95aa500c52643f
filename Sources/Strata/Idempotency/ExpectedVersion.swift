/// The version of an entry a write in progress expects main to hold: the write applies only on top of it.
///
/// The offline outbox (StrataOffline) binds it when it sends a write again after a conflict that its resolver
/// settled by keeping the local value (or a merge): the write goes on top of the version main held then (its
/// entity tag, ``EntryMetadata/eTag`` of main's entry), and main refuses it again as a conflict if that version
/// changed meanwhile. The HTTP data sources of StrataNetwork send it as the `If-Match` header (not a weak entity
/// tag, `W/"…"`, which `If-Match` never matches: such a write goes without the condition, as one whose entry has no
/// tag); a source of your own reads it while it writes:
///
/// ```swift
/// struct NotesAPI: PutDataSource {
///     let database: NotesDatabase
///
///     func put(_ note: Note, in query: any Query) async throws -> Note {
///         try await database.update(note, onlyIfRevision: ExpectedVersion.current)
///     }
///
///     func putAll(_ notes: [Note], in query: any Query) async throws -> [Note] {
///         try await database.update(notes, onlyIfRevision: ExpectedVersion.current)
///     }
/// }
/// ```
public enum ExpectedVersion: Sendable {
    /// The version the current task's write expects main to hold, or `nil` for a write that applies whatever main
    /// holds.
    @TaskLocal public static var current: String?

    /// The HTTP header that carries the version: `If-Match`.
    public static let headerName = "If-Match"
}
