/// A parser that the fuzz driver feeds arbitrary bytes, and the invariants it must keep on any input.
///
/// Each target must never trap (a trap is what libFuzzer reports as a crash) and throws ``FuzzFailure`` when an
/// invariant breaks, such as a value that does not survive its own serializer. The seed corpus of a target is
/// `Tests/Fuzz/Corpus/<rawValue>`.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `HTTPDate.parse` and the headers read through it: `Date`, `Expires`, `Last-Modified`, `Retry-After`.
    case httpDate = "http-date"
    /// `CacheControl(parsing:)`, the `Age` header and the freshness lifetime computed from them.
    case cacheControl = "cache-control"
    /// The JSON store's index journal (`IndexJournal.replay`).
    case jsonJournal = "json-journal"
    /// A JSON store's entry file and its checksum line (`EntrySeal.open`).
    case jsonEntry = "json-entry"
    /// The file store's entry trailer (`EntryTrailer(bytes:)` and the footer it is found by).
    case entryTrailer = "entry-trailer"
    /// The store marker (`StoreMarker.parse`, and `StoreMarker.read` on a real folder as the `strata` tool does).
    case storeMarker = "store-marker"
    /// A BlobCache freshness record (`FreshnessRecord.decode`, binary formats 1 and 2 and legacy JSON).
    case freshnessRecord = "freshness-record"
    /// A `FileCacheProvider` entry's reuse rule, read from the attributes the store keeps (`FileCacheProvider.Reuse`).
    case providerReuse = "provider-reuse"
    /// The file store's access journal, `.strata-index` (`AccessJournal.decode`), as found and sealed again.
    case accessJournal = "access-journal"
    /// A JSON store's `session` file (`StoreSession.parse`).
    case storeSession = "store-session"
    /// Header fields a transport's table joined, split back (`HTTPHeaders.splittingJoinedFields`).
    case headerFields = "header-fields"
    /// What a revalidation reads from servers: entity tags (`ConditionalHeaders`), a `304`'s renewal of them, and
    /// `Vary` with the request fields it nominates (`HTTPResponse.variedFields(of:)`).
    case revalidation = "revalidation"
    /// A redirect's `Location`, resolved as a transport resolves it and followed by the transports' rule
    /// (`RedirectRule.follow(_:sentTo:status:to:)`).
    case redirect = "redirect"
    /// A URL's path read for dot segments (`HTTPRequest.dotSegment`, byte by byte), against Foundation's decoding.
    case urlPath = "url-path"
    /// A file of an offline repository's outbox (`OutboxFile`, a record or a file that is not one).
    case outboxRecord = "outbox-record"
    /// Notifications on a PostgreSQL table's channel (`PostgresFeedPayload`, recorded by a change feed) and an
    /// entry's version tag (`PostgresEntryTag`). Built only with the `Postgres` trait (``isBuilt``).
    case postgresPayload = "postgres-payload"

    /// The targets this build holds: every one but those of an integration whose trait is off.
    public static var built: [FuzzTarget] { allCases.filter(\.isBuilt) }

    /// Whether this build holds the target: `postgres-payload` needs the `Postgres` trait (`scripts/fuzz` enables it
    /// when the target is asked for).
    public var isBuilt: Bool {
        #if Postgres
            true
        #else
            self != .postgresPayload
        #endif
    }

    /// Feeds `bytes` to the parser and checks its invariants.
    ///
    /// - Throws: ``FuzzFailure`` when an invariant does not hold.
    public func run(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
        #if DEBUG
            switch self {
            case .httpDate: try Self.httpDate(bytes)
            case .cacheControl: try Self.cacheControl(bytes)
            case .jsonJournal: try Self.jsonJournal(bytes)
            case .jsonEntry: try Self.jsonEntry(bytes)
            case .entryTrailer: try Self.entryTrailer(bytes)
            case .storeMarker: try Self.storeMarker(bytes)
            case .freshnessRecord: try Self.freshnessRecord(bytes)
            case .providerReuse: try Self.providerReuse(bytes)
            case .accessJournal: try Self.accessJournal(bytes)
            case .storeSession: try Self.storeSession(bytes)
            case .headerFields: try Self.headerFields(bytes)
            case .revalidation: try Self.revalidation(bytes)
            case .redirect: try Self.redirect(bytes)
            case .urlPath: try Self.urlPath(bytes)
            case .outboxRecord: try Self.outboxRecord(bytes)
            case .postgresPayload:
                #if Postgres
                    try Self.postgresPayload(bytes)
                #else
                    throw FuzzFailure("postgres-payload needs the Postgres trait (--traits Postgres)", input: [UInt8]())
                #endif
            }
        #else
            // The targets reach internal parsers through `@testable import`, which only a debug build allows.
            throw FuzzFailure("the fuzz targets need a debug build", input: [UInt8]())
        #endif
    }

    /// Feeds `bytes` to the parser; see ``run(_:)-(UnsafeRawBufferPointer)``.
    public func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        let result: Result<Void, FuzzFailure> = bytes.withUnsafeBytes { buffer in
            Result { () throws(FuzzFailure) in try run(buffer) }
        }
        try result.get()
    }
}

/// An invariant of a fuzz target that an input broke.
public struct FuzzFailure: Error, CustomStringConvertible, Sendable {
    /// What did not hold.
    public let message: String
    /// The input, as text with escapes.
    public let input: String

    /// Creates a failure for `input`.
    init(_ message: String, input: some Collection<UInt8>) {
        self.message = message
        self.input = String(decoding: input, as: UTF8.self).debugDescription
    }

    /// The message and the input.
    public var description: String { "\(message); input \(input)" }
}

/// Throws a ``FuzzFailure`` unless `condition` holds.
func expect(
    _ condition: Bool,
    _ message: @autoclosure () -> String,
    input: some Collection<UInt8>
) throws(FuzzFailure) {
    if !condition { throw FuzzFailure(message(), input: input) }
}
