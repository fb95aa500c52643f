import Foundation
import Strata
import StrataTesting
import Testing

struct Stamped: Sendable, Equatable {
    let name: String
    let fetchedAt: Date
}

struct ValidatorTests {
    @Test(arguments: [
        (Duration.seconds(299), true),
        (Duration.milliseconds(299_999), true),
        (Duration.seconds(300), false),
        (Duration.seconds(301), false),
    ])
    func maxAgeOnTheValuesTimestampExpiresExactlyAtTheBoundary(elapsed: Duration, valid: Bool) {
        // Given a value stamped now and a five-minute validator
        let clock = ManualClock()
        let validator = TimestampValidator<Stamped>(maxAge: .seconds(300), timestamp: \.fetchedAt, clock: clock)
        let value = Stamped(name: "a", fetchedAt: clock.now())
        // When time passes
        clock.advance(by: elapsed)
        // Then it is valid strictly before the boundary only
        #expect(validator.isValid(value, context: ValidationContext()) == valid)
    }

    @Test func storedTimeValidatorReadsTheEntrysStoredDate() async throws {
        // Given an entry stored through a source that records stored dates
        let clock = ManualClock()
        let source = EntryDatedSource(clock: clock)
        _ = try await source.put("v", in: KeyQuery("k"))
        let validated = source.validated(by: .maxAge(.seconds(60), clock: clock))
        // Then it is valid until exactly 60 seconds later
        clock.advance(by: .seconds(59))
        #expect(try await validated.get(KeyQuery("k")) == "v")
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: StrataError.self) { try await validated.get(KeyQuery("k")) }
        #expect(error?.code == .notValid)
        #expect(error?.value(as: String.self) == "v")
    }

    /// An entry stored while the clock was a day ahead (since set back, or another machine's) is not valid: its age
    /// is unknown. Before, it stayed valid for the day and its `maxAge` on top.
    @Test func storedTimeValidatorRejectsAnEntryStoredLaterThanNow() async throws {
        let clock = ManualClock()
        let ahead = ManualClock(start: clock.now().addingTimeInterval(86_400))
        let source = EntryDatedSource(clock: ahead)
        _ = try await source.put("v", in: KeyQuery("k"))
        let validated = source.validated(by: .maxAge(.seconds(60), clock: clock))

        clock.advance(by: .seconds(61))

        let error = await #expect(throws: StrataError.self) { try await validated.get(KeyQuery("k")) }
        #expect(error?.code == .notValid)
        let validator = StoredTimeValidator<String>(maxAge: .seconds(60), clock: clock)
        let context = ValidationContext(storedAt: ahead.now())
        #expect(validator.staleSince("v", context: context) == nil, "its age is unknown")
        #expect(validator.isValid("v", context: ValidationContext(storedAt: clock.now())))
    }

    @Test func storedTimeValidatorRejectsValuesOfSourcesWithoutDates() async throws {
        let source = ScriptedDataSource(["k": "v"])
        let validated = source.validated(by: StoredTimeValidator(maxAge: .seconds(60), clock: ManualClock()))
        await #expect(throws: StrataError.self) { try await validated.get(KeyQuery("k")) }
    }

    @Test(arguments: [
        (Duration.seconds(59), true),
        (Duration.seconds(60), false),
        (Duration.seconds(61), false),
    ])
    func freshnessValidatorIsValidStrictlyBeforeFreshUntil(elapsed: Duration, valid: Bool) {
        // Given an entry fresh for 60 seconds from now
        let clock = ManualClock()
        let validator: FreshnessValidator<String> = .fresh(clock: clock)
        let context = ValidationContext(EntryMetadata(freshUntil: clock.now().addingTimeInterval(60)))
        // When time passes
        clock.advance(by: elapsed)
        // Then it is valid strictly before its freshness date only
        #expect(validator.isValid("v", context: context) == valid)
    }

    @Test func freshnessValidatorAcceptsAnEntryWithoutFreshUntil() {
        // An entry whose source gave no freshness date is valid, whatever its other dates say
        let clock = ManualClock()
        let validator = FreshnessValidator<String>(clock: clock)
        let metadata = EntryMetadata(storedAt: .distantPast, expiresAt: .distantPast)
        #expect(validator.isValid("v", context: ValidationContext(metadata)))
    }

    @Test func validatorsComposeWithAllAndAny() {
        let yes = ClosureValidator<Int> { _, _ in true }
        let no = ClosureValidator<Int> { _, _ in false }
        let context = ValidationContext()
        #expect(yes.and(yes).isValid(1, context: context))
        #expect(!yes.and(no).isValid(1, context: context))
        #expect(yes.or(no).isValid(1, context: context))
        #expect(!no.or(no).isValid(1, context: context))
        #expect(AllValidator<Int>([]).isValid(1, context: context))
        #expect(!AnyValidator<Int>([]).isValid(1, context: context))
    }

    /// Before, a refusing validator that cannot date its refusal was skipped: the other one's date made a value the
    /// closure refused look merely stale, and a stale-while-revalidate window served it at once.
    @Test func allCannotDateARefusalWhenARefusingValidatorCannot() {
        let clock = ManualClock()
        let context = ValidationContext(EntryMetadata(freshUntil: clock.now()))
        clock.advance(by: .seconds(10))
        let fresh: FreshnessValidator<Int> = .fresh(clock: clock)
        let refuses = ClosureValidator<Int> { _, _ in false }
        let accepts = ClosureValidator<Int> { _, _ in true }

        #expect(fresh.and(refuses).staleSince(1, context: context) == nil)
        #expect(fresh.and(accepts).staleSince(1, context: context) == fresh.staleSince(1, context: context))
        #expect(fresh.staleSince(1, context: context) != nil)
    }

    @Test func getAllIsInvalidWhenOneValueIsInvalidAndCarriesAllValues() async throws {
        let source = ScriptedDataSource(["1": "ok", "2": "expired"])
        let validated = source.validated(by: ClosureValidator { value, _ in value != "expired" })
        let error = await #expect(throws: StrataError.self) { try await validated.getAll(IdsQuery([1, 2])) }
        #expect(error?.value(as: [String].self) == ["ok", "expired"])
    }

    @Test func writesPassThroughAValidator() async throws {
        let source = ScriptedDataSource<String>()
        let validated = source.validated(by: ClosureValidator { _, _ in false })
        _ = try await validated.put("v", in: KeyQuery("k"))
        try await validated.delete(KeyQuery("other"))
        #expect(source.contents == ["k": "v"])
    }
}

/// A minimal source that records stored dates, to test ``StoredTimeValidator`` inside the core.
final class EntryDatedSource: DataSource {
    private let store = ScriptedDataSource<StoredEntry<String>>()
    let clock: ManualClock

    init(clock: ManualClock) { self.clock = clock }

    func getEntry(_ query: any Query) async throws -> StoredEntry<String> { try await store.get(query) }
    func getAllEntries(_ query: any Query) async throws -> [StoredEntry<String>] { try await store.getAll(query) }
    func get(_ query: any Query) async throws -> String { try await getEntry(query).value }
    func getAll(_ query: any Query) async throws -> [String] { try await getAllEntries(query).map(\.value) }
    func put(_ value: String, in query: any Query) async throws -> String {
        try await store.put(StoredEntry(value: value, storedAt: clock.now()), in: query).value
    }
    func putAll(_ values: [String], in query: any Query) async throws -> [String] {
        try await store.putAll(values.map { StoredEntry(value: $0, storedAt: clock.now()) }, in: query).map(\.value)
    }
    func delete(_ query: any Query) async throws { try await store.delete(query) }
}
