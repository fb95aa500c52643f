import CStrataAtomics

/// The reports of a chain's calls that returned, each made once per method, operation and outcome: counting such a
/// call hands the counters a report that already exists, copying nothing unless the call was timed.
///
/// Building a ``CountedCall`` copies the source's and the operation's names, and dropping it releases them: a
/// dozen runtime calls on every counted call, even for names too short to be on the heap, which on a memory-cache
/// hit cost more than the counter. A call that returned is told entirely by its method, its operation, its outcome
/// and, when it was timed, its duration, so its report can be made once and lent to the counters ever after (a copy
/// with the duration when there is one).
///
/// Readers find a report by loading one word (acquire) and use it without retaining it; reports are made under a
/// lock, published with a release store, and kept until the chain is freed. At most ``limit`` are made: a
/// repository called with more operations than that builds the others' reports per call, as before.
final class ReturnedCallReports: @unchecked Sendable {
    // @unchecked Sendable is sound: `slots` is only read and written by the atomic operations, each word holding
    // zero or the address of a report that `made` retains; `made` is only touched under its lock.

    /// A report, in a class so that it is lent to the counters without a copy, with the counters to hand it to.
    final class Report: Sendable {
        /// One of the chain's counters as a report holds it: the counter itself, or the series it binds to the
        /// report (``ReportBindingCounter``). Unmanaged references, which a call copies without retaining; the
        /// report's ``boxes`` and ``series`` keep them alive.
        enum Counter {
            case counter(Unmanaged<CounterBox>)
            case series(Unmanaged<SeriesBox>)

            /// The series, when the counter binds.
            var series: Unmanaged<SeriesBox>? {
                guard case .series(let box) = self else { return nil }
                return box
            }

            /// The counter, when it does not bind.
            var counter: Unmanaged<CounterBox>? {
                guard case .counter(let box) = self else { return nil }
                return box
            }
        }

        /// A bound series, held so that a counted call reaches it through one reference.
        final class SeriesBox: Sendable {
            let series: any ReturnedCallSeries

            init(_ series: any ReturnedCallSeries) { self.series = series }
        }

        /// The report of the call.
        let call: CountedCall

        /// The chain's counters, innermost first, each replaced by the series it binds to this report when it does.
        let counters: [Counter]

        /// The one series of a chain whose only counter binds (one `SwiftMetricsPlugin`), which a call goes
        /// straight to; `nil` when there are other counters.
        let onlySeries: Unmanaged<SeriesBox>?

        /// The one counter of a chain whose only counter does not bind, which an untimed call goes straight to.
        let onlyCounter: Unmanaged<CounterBox>?

        /// The counters that do not bind, and the series of those that do: what keeps ``counters`` alive.
        private let boxes: [CounterBox]
        private let series: [SeriesBox]

        init(_ call: CountedCall, counters: [CounterBox]) {
            self.call = call
            var boxes: [CounterBox] = []
            var series: [SeriesBox] = []
            self.counters = counters.map { box in
                guard let binding = box.counter as? any ReportBindingCounter else {
                    boxes.append(box)
                    return .counter(.passUnretained(box))
                }
                let bound = SeriesBox(binding.counter(forEvery: call))
                series.append(bound)
                return .series(.passUnretained(bound))
            }
            self.boxes = boxes
            self.series = series
            onlySeries = self.counters.count == 1 ? self.counters.first.flatMap(\.series) : nil
            onlyCounter = self.counters.count == 1 ? self.counters.first.flatMap(\.counter) : nil
        }

        /// Hands the call to every counter, innermost first, with its duration when it was timed: a bound series
        /// gets the nanoseconds, a counter the report (a copy with the duration when there is one).
        ///
        /// - Parameter nanoseconds: How long the call took, when it was timed (``PluginChain/nanoseconds(since:)``).
        @inline(__always)
        func count(nanoseconds: Int64?) {
            if let onlySeries {
                onlySeries._withUnsafeGuaranteedRef { $0.series.countReturned(nanoseconds: nanoseconds) }
                return
            }
            if nanoseconds == nil, let onlyCounter {
                onlyCounter._withUnsafeGuaranteedRef { $0.count(call) }
                return
            }
            countEach(nanoseconds: nanoseconds)
        }

        /// ``count(nanoseconds:)`` for a chain of several counters, or one that does not bind.
        @inline(never)
        private func countEach(nanoseconds: Int64?) {
            for counter in counters {
                switch counter {
                case .series(let box):
                    box._withUnsafeGuaranteedRef { $0.series.countReturned(nanoseconds: nanoseconds) }
                case .counter(let box):
                    guard let nanoseconds else {
                        box._withUnsafeGuaranteedRef { $0.count(call) }
                        continue
                    }
                    box._withUnsafeGuaranteedRef { $0.count(timed(nanoseconds)) }
                }
            }
        }

        /// The report with the duration of a timed call.
        private func timed(_ nanoseconds: Int64) -> CountedCall {
            CountedCall(
                source: call.source,
                method: call.method,
                operationName: call.operationName,
                outcome: call.outcome,
                error: nil,
                duration: .nanoseconds(nanoseconds)
            )
        }
    }

    /// How many reports a chain makes at most.
    static let limit = 64

    private static let outcomes = 6

    private let source: String
    private let counters: [CounterBox]
    private let slots: UnsafeMutablePointer<Int>
    private let made = Locked<[Report]>([])

    /// Creates the table of `source`'s reports, empty, for `counters` (innermost first).
    init(source: String, counters: [CounterBox]) {
        self.source = source
        self.counters = counters
        let count = PluginCall.Method.allCases.count * Self.outcomes
        slots = .allocate(capacity: count)
        slots.initialize(repeating: 0, count: count)
    }

    deinit {
        slots.deallocate()
    }

    /// The report of a call of `method` that returned with `outcome` under `operationName`, made the
    /// first time it is asked; `nil` when ``limit`` reports were made and none is this one.
    @inline(__always)
    func report(_ method: PluginCall.Method, _ operationName: String?, _ outcome: CallOutcome) -> Unmanaged<Report>? {
        let slot = slots + Self.index(method, outcome)
        if let pointer = UnsafeRawPointer(bitPattern: strata_atomic_load_acquire(slot)) {
            // `made` retains every report ever published, for as long as `self` lives.
            let found = Unmanaged<Report>.fromOpaque(pointer)
            if found._withUnsafeGuaranteedRef({ $0.call.operationName == operationName }) { return found }
        }
        return make(method, operationName, outcome, in: slot)
    }

    /// Finds or makes the report and publishes it in `slot`.
    ///
    /// A new report is built outside the lock: building it asks each counter for its series
    /// (``ReportBindingCounter``), which may run a metrics factory of the user's. Two calls that build the same report
    /// at once keep the first one published.
    @inline(never)
    private func make(
        _ method: PluginCall.Method,
        _ operationName: String?,
        _ outcome: CallOutcome,
        in slot: UnsafeMutablePointer<Int>
    ) -> Unmanaged<Report>? {
        func isThis(_ report: Report) -> Bool {
            report.call.method == method && report.call.outcome == outcome && report.call.operationName == operationName
        }
        func publish(_ report: Report) -> Unmanaged<Report> {
            let published = Unmanaged.passUnretained(report)
            strata_atomic_store_release(slot, Int(bitPattern: published.toOpaque()))
            return published
        }
        // Any report in `made` may be published at any time (a reader checks the operation's name), so a found one
        // is published outside the lock.
        let (found, isFull) = made.withLock { made in (made.first(where: isThis), made.count >= Self.limit) }
        if let found { return publish(found) }
        guard !isFull else { return nil }
        let built = Report(
            CountedCall(
                source: source,
                method: method,
                operationName: operationName,
                outcome: outcome,
                error: nil,
                duration: nil
            ),
            counters: counters
        )
        return made.withLock { made in
            if let found = made.first(where: isThis) { return publish(found) }
            guard made.count < Self.limit else { return nil }
            made.append(built)
            return publish(built)
        }
    }

    /// The slot of a method and an outcome.
    @inline(__always)
    private static func index(_ method: PluginCall.Method, _ outcome: CallOutcome) -> Int {
        let row =
            switch method {
            case .get: 0
            case .getAll: 1
            case .put: 2
            case .putAll: 3
            case .delete: 4
            }
        let column =
            switch outcome.kind {
            case .hit: 0
            case .miss: 1
            case .staleServed: 2
            case .notValid: 3
            case .success: 4
            case .error: 5
            }
        return row * outcomes + column
    }
}
