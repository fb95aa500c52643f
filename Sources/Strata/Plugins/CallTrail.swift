/// The data-source steps of one repository call, so that plugins on a repository can tell where its value came
/// from: the cache (a hit), main after a cache miss (a miss), or a stale cached value (served stale).
///
/// Observability plugins attached both to a repository and to its sources share a trail through a task-local: the
/// repository's plugin runs the call inside ``run(for:_:)``, each source's plugin adds a step with ``record(_:error:)``,
/// and the repository's plugin reads ``origin`` and ``outcome(error:)`` once the call returned. Without plugins on the
/// sources a trail has no steps: reads that return are reported as hits from an unknown origin.
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

    private init(_ call: PluginCall) {
        self.call = (call.source, call.method)
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
        if let current, current.call.source == call.source, current.call.method == call.method {
            return try await body(current)
        }
        let trail = CallTrail(call)
        return try await $current.withValue(trail) { try await body(trail) }
    }

    /// Adds a source call to the current trail, if there is one.
    ///
    /// - Parameters:
    ///   - call: The data source call.
    ///   - error: What it threw, or `nil` when it returned.
    public static func record(_ call: PluginCall, error: (any Error)?) {
        guard call.operation == nil, let current else { return }
        let step = Step(source: call.source, method: call.method, outcome: CallOutcome(call.method, error: error))
        current.recorded.withLock { $0.append(step) }
    }

    /// The source whose read gave the value: the last read that returned, or the source of a stale value served;
    /// `nil` when no source reported a step.
    public var origin: String? {
        recorded.withLock { steps in
            let reads = steps.lazy.filter(\.method.isRead)
            return (reads.last { $0.outcome == .hit } ?? reads.first { $0.outcome == .notValid })?.source
        }
    }

    /// How the repository call ended, from its steps.
    ///
    /// - Parameter error: What the repository call threw, or `nil` when it returned.
    public func outcome(error: (any Error)?) -> CallOutcome {
        let plain = CallOutcome(call.method, error: error)
        guard plain == .hit else { return plain }
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
    public static func observe<R: Sendable>(
        _ call: PluginCall,
        next: () async throws -> R,
        report: (ObservedCall, R?) -> Void
    ) async throws -> R {
        let start = ContinuousClock.now
        guard call.operation != nil else {
            do {
                let result = try await next()
                record(call, error: nil)
                report(ObservedCall(call, CallOutcome(call.method, error: nil), call.source, nil, start), result)
                return result
            } catch {
                record(call, error: error)
                report(ObservedCall(call, CallOutcome(call.method, error: error), call.source, error, start), nil)
                throw error
            }
        }
        return try await run(for: call) { trail in
            do {
                let result = try await next()
                report(ObservedCall(call, trail.outcome(error: nil), trail.origin, nil, start), result)
                return result
            } catch {
                report(ObservedCall(call, trail.outcome(error: error), trail.origin, error, start), nil)
                throw error
            }
        }
    }
}

extension ObservedCall {
    /// A report of a call that started at `start` and ends now.
    fileprivate init(
        _ call: PluginCall,
        _ outcome: CallOutcome,
        _ origin: String?,
        _ error: (any Error)?,
        _ start: ContinuousClock.Instant
    ) {
        self.init(call: call, outcome: outcome, origin: origin, error: error, duration: start.duration(to: .now))
    }
}
