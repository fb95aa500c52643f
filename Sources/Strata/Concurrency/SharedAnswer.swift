/// What work shared by several calls (a ``RequestCoalescer``'s run, a batch of ``BatchingDataSource``) gives each
/// of them: its value or error, whether a source marked the value stale (`StaleAnswerReport`), and the steps its
/// sources added to a ``CallTrail`` with what a repository reported there.
///
/// The work belongs to no one caller's call: it runs in a task of its own, outside every call
/// (`CallContext.startShared(_:)`), and each caller takes its answer in its own task (``take()``), where the stale
/// mark reaches its own read and the steps its own trail, from which its plugins read the value's origin.
struct SharedAnswer<Value: Sendable>: Sendable {
    /// The work's value or error.
    var result: Result<Value, any Error>
    /// Whether a source marked the value stale.
    var isStale = false
    /// The steps the work's sources added to its trail.
    var steps: [CallTrail.Step] = []
    /// What a repository reported in the work, if any.
    var reported: CallTrail.Report?

    /// Runs `work` in a trail of its own when trails are in use (`CallTrail.collectingSteps(for:_:)`) and in a
    /// stale-answer report of its own, and returns what it found.
    ///
    /// - Parameters:
    ///   - starter: The trail of the call whose task started the work, if any.
    ///   - work: The shared work.
    static func of(for starter: CallTrail?, _ work: @Sendable () async throws -> Value) async -> SharedAnswer {
        var (answer, steps, reported) = await CallTrail.collectingSteps(for: starter) { () async -> SharedAnswer in
            do {
                let (value, isStale) = try await StaleAnswerReport.reading { try await work() }
                return SharedAnswer(result: .success(value), isStale: isStale)
            } catch {
                return SharedAnswer(result: .failure(error))
            }
        }
        answer.steps = steps
        answer.reported = reported
        return answer
    }

    /// This answer with its value made into `transform`'s result: the same stale mark, steps and report.
    ///
    /// - Parameter transform: Makes the value into another's value or error.
    func flatMap<Other>(_ transform: (Value) -> Result<Other, any Error>) -> SharedAnswer<Other> {
        SharedAnswer<Other>(result: result.flatMap(transform), isStale: isStale, steps: steps, reported: reported)
    }

    /// Gives the answer to the call running in this task: adds the steps and the report to its trail, if it has one,
    /// tells its read a value is stale, and returns the value or throws the error.
    func take() throws -> Value {
        CallTrail.add(steps, reported: reported)
        let value = try result.get()
        StaleAnswerReport.mark(isStale)
        return value
    }
}
