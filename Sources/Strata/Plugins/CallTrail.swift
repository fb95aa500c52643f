/// The data-source steps of one repository call, so that plugins on a repository can tell where its value came
/// from: the cache (a hit), main after a cache miss (a miss), or a stale cached value (served stale).
///
/// Observability plugins attached both to a repository and to its sources share a trail through a task-local: the
/// repository's plugin runs the call inside ``run(for:_:)``, each source's plugin adds a step with ``record(_:error:)``,
/// and the repository's plugin reads ``origin`` and ``outcome(error:)`` once the call returned. Without plugins on the
/// sources a trail has no steps: a ``CacheRepository`` says itself how its read ended and which of its two sources
/// answered (the origin is then `cache` or `main`), and another repository's read that returned is reported as a hit
/// with no origin.
public final class CallTrail: Sendable {
    /// One source call seen during a repository call.
    public struct Step: Sendable, Hashable {
        /// The name of the source (``PluginCall/source``).
        public let source: String
        /// The method called on it.
        public let method: PluginCall.Method
        /// How it ended.
        public let outcome: CallOutcome
    }

    /// The trail of the repository call running in this task, if a plugin started one.
    @TaskLocal public static var current: CallTrail?

    private let call: (source: String, method: PluginCall.Method)
    private let recorded = Locked<[Step]>([])
    /// How the repository running the call said its read ended (`report`); `nil` when none said.
    private let reported = Locked<Report?>(nil)

    private init(_ call: PluginCall) {
        self.call = (call.source, call.method)
    }

    private init(identity: (source: String, method: PluginCall.Method)) {
        call = identity
    }

    /// How many trails are bound to tasks now: while none is, a source call has no trail to look up.
    private static let boundCount = AtomicCount()

    /// Whether a trail may be bound to the current task: `false` means none is, without the task-local lookup.
    static var mayBeBound: Bool { boundCount.value > 0 }

    /// Runs `body` with `trail` as ``current``.
    @usableFromInline
    static func bind<R>(_ trail: CallTrail, _ body: () async throws -> R) async rethrows -> R {
        boundCount.add(1)
        defer { boundCount.add(-1) }
        return try await $current.withValue(trail) { try await body() }
    }

    /// Runs a repository read inside a new trail and returns its value with the outcome the trail gives: how a
    /// repository that does not say how its reads ended is counted (``GetRepository/getReportingOutcome(_:operation:)``).
    ///
    /// - Parameters:
    ///   - method: The repository method.
    ///   - source: The name plugins see the repository by, when they wrap it (``PluginCall/source``): their trail
    ///     for the call is then this one.
    ///   - read: The read.
    @usableFromInline
    package static func reportingOutcome<Value>(
        of method: PluginCall.Method,
        source: String = "",
        _ read: () async throws -> Value
    ) async throws -> (value: Value, outcome: CallOutcome) {
        let trail = CallTrail(identity: (source, method))
        let value = try await bind(trail) { try await read() }
        return (value, trail.outcome(error: nil))
    }

    /// The steps so far, in the order they ended.
    public var steps: [Step] { recorded.withLock { $0 } }

    /// Runs a repository call inside a trail: the current one when an outer plugin already started it for this call,
    /// a new one otherwise (nested repositories each get theirs).
    ///
    /// - Parameters:
    ///   - call: The repository call.
    ///   - body: Runs the call; it receives the trail.
    public static func run<R>(
        for call: PluginCall,
        _ body: (CallTrail) async throws -> R
    ) async rethrows -> R {
        let (trail, isNew) = trail(for: call)
        if !isNew { return try await body(trail) }
        return try await bind(trail) { try await body(trail) }
    }

    /// The trail of a repository call: the current one when an outer plugin already started it for this call, a new
    /// one (to bind to ``current`` while the call runs) otherwise.
    static func trail(for call: PluginCall) -> (trail: CallTrail, isNew: Bool) {
        if let current, current.call.source == call.source, current.call.method == call.method {
            return (current, false)
        }
        return (CallTrail(call), true)
    }

    /// Adds a source call to the current trail, if there is one.
    ///
    /// - Parameters:
    ///   - call: The data source call.
    ///   - error: What it threw, or `nil` when it returned.
    public static func record(_ call: PluginCall, error: (any Error)?) {
        guard call.operation == nil, mayBeBound, let current else { return }
        let step = Step(source: call.source, method: call.method, outcome: CallOutcome(call.method, error: error))
        current.recorded.withLock { $0.append(step) }
    }

    /// Runs `body`, work shared by several calls (a ``RequestCoalescer``'s run, a batch of ``BatchingDataSource``), in
    /// a trail of its own when trails are in use, and returns what it returned with the steps its sources added and
    /// what a repository reported in it; each call adds them to its own trail (``add(_:reported:)``).
    ///
    /// The run's trail stands for `starter`, the trail of the call that started the run: a plugin inside the run that
    /// observes the same repository call shares it, as it would share the starter's.
    ///
    /// - Parameters:
    ///   - starter: The trail bound to the task that starts the run, if any.
    ///   - body: The shared work.
    package static func collectingSteps<R>(
        for starter: CallTrail?,
        _ body: () async -> R
    ) async -> (value: R, steps: [Step], reported: Report?) {
        guard starter != nil || mayBeBound else { return (await body(), [], nil) }
        let trail = CallTrail(identity: starter?.call ?? ("", .get))
        let value = await bind(trail) { await body() }
        return (value, trail.steps, trail.reported.withLock { $0 })
    }

    /// Adds what work this call shared with others found (``collectingSteps(for:_:)``) to the current trail, if there
    /// is one: its steps, and what a repository reported in it.
    ///
    /// - Parameters:
    ///   - steps: The shared work's steps.
    ///   - reported: What a repository reported in the shared work (an outcome and a source), if any.
    package static func add(_ steps: [Step], reported: Report?) {
        guard steps.isEmpty == false || reported != nil, mayBeBound, let current else { return }
        if !steps.isEmpty { current.recorded.withLock { $0 += steps } }
        if let reported { current.reported.withLock { $0 = reported } }
    }

    /// How a repository that knows said its read ended (``report(_:from:)``).
    package struct Report: Sendable, Hashable {
        /// How the read ended.
        let outcome: CallOutcome
        /// Which of the repository's two sources gave the value (or the stale value served).
        let source: OperationPlan.Source
    }

    /// Tells the trail bound to this task, if a plugin bound one, how the repository read running in it ended and
    /// which of its sources answered: a repository that knows (``CacheRepository``) says so, and ``outcome(error:)``
    /// prefers it to the steps, which are missing when its sources have no plugins; ``origin`` takes the source when
    /// the steps name none. Repositories nested in one another report in turn; the outermost finishes last, and its
    /// report stands.
    ///
    /// - Parameters:
    ///   - outcome: How the read ended.
    ///   - source: The source that gave the value, or the stale value served.
    @usableFromInline
    static func report(_ outcome: CallOutcome, from source: OperationPlan.Source) {
        guard mayBeBound, let current else { return }
        current.reported.withLock { $0 = Report(outcome: outcome, source: source) }
    }

    /// The source whose read gave the value: the last read of a source with plugins that returned, or the source
    /// of a stale value served; else, when the repository said which of its sources answered (a ``CacheRepository``
    /// does), `cache` or `main`; `nil` when neither tells.
    public var origin: String? {
        let named = recorded.withLock { steps in
            let reads = steps.lazy.filter(\.method.isRead)
            return (reads.last { $0.outcome == .hit } ?? reads.first { $0.outcome == .notValid })?.source
        }
        return named ?? reported.withLock { $0?.source.description }
    }

    /// How the repository call ended: what the repository said (a ``CacheRepository`` says), else what its steps give.
    ///
    /// - Parameter error: What the repository call threw, or `nil` when it returned.
    public func outcome(error: (any Error)?) -> CallOutcome {
        let plain = CallOutcome(call.method, error: error)
        guard plain == .hit else { return plain }
        if let reported = reported.withLock({ $0?.outcome }) { return reported }
        return recorded.withLock { steps in
            let reads = steps.lazy.filter(\.method.isRead)
            guard let first = reads.first else { return .hit }
            if first.outcome == .hit { return .hit }
            return reads.contains { $0.outcome == .hit } || first.outcome == .miss ? .miss : .staleServed
        }
    }
}

extension CallTrail {
    /// Runs a call and reports how it ended: the one algorithm of the logging, metrics and tracing integrations.
    ///
    /// A repository call (one with an operation) runs inside a trail (``run(for:_:)``) and is reported with the
    /// trail's ``origin`` and ``outcome(error:)``; a data source call adds its step to the current trail and is
    /// reported with its own outcome, itself as the origin.
    ///
    /// - Parameters:
    ///   - call: The call.
    ///   - next: Runs it.
    ///   - report: Receives the finished call, returned or thrown, with what it returned.
    /// - Returns: What `next` returned.
    /// - Throws: What `next` threw.
    @inlinable
    public static func observe<R: Sendable>(
        _ call: PluginCall,
        next: () async throws -> R,
        report: (ObservedCall, R?) -> Void
    ) async throws -> R {
        // The bookkeeping is synchronous, before and after the one call: no task frame of its own.
        let observation = CallObservation(call)
        do {
            let result: R
            if let trail = observation.trailToBind {
                result = try await bind(trail) { try await next() }
            } else {
                result = try await next()
            }
            report(observation.finished(error: nil), result)
            return result
        } catch {
            report(observation.finished(error: error), nil)
            throw error
        }
    }
}

/// One call being observed: started by ``CallTrail/observe(_:next:report:)``, made into an ``ObservedCall`` when it
/// ended.
@usableFromInline
struct CallObservation: Sendable {
    private let call: PluginCall
    private let start: ContinuousClock.Instant
    /// The trail of a repository call; `nil` for a data source call.
    private let trail: CallTrail?
    /// A new trail, to bind to ``CallTrail/current`` while the call runs.
    @usableFromInline let trailToBind: CallTrail?

    /// Starts observing `call` now.
    @usableFromInline
    init(_ call: PluginCall) {
        self.call = call
        start = .now
        if call.operation == nil {
            (trail, trailToBind) = (nil, nil)
        } else {
            let (trail, isNew) = CallTrail.trail(for: call)
            (self.trail, trailToBind) = (trail, isNew ? trail : nil)
        }
    }

    /// The report of the call, which ended now: a repository call with its trail's outcome and origin; a data
    /// source call with its own, after its step is added to the current trail.
    ///
    /// - Parameter error: What the call threw, or `nil` when it returned.
    @usableFromInline
    func finished(error: (any Error)?) -> ObservedCall {
        guard let trail else {
            CallTrail.record(call, error: error)
            return ObservedCall(call, CallOutcome(call.method, error: error), call.source, error, start)
        }
        return ObservedCall(call, trail.outcome(error: error), trail.origin, error, start)
    }
}

extension ObservedCall {
    /// A report of a call that started at `start` and ends now.
    init(
        _ call: PluginCall,
        _ outcome: CallOutcome,
        _ origin: String?,
        _ error: (any Error)?,
        _ start: ContinuousClock.Instant
    ) {
        self.init(call: call, outcome: outcome, origin: origin, error: error, duration: start.duration(to: .now))
    }
}
