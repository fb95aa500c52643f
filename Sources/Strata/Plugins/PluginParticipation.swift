/// How a plugin takes part in the calls of one source or repository, decided once when it is attached.
///
/// A plugin says it in ``StrataPlugin/participation(in:)``; Strata asks when `plugins(_:name:)` wraps the source or
/// repository, never per call. The cheaper the participation, the less a call pays:
///
/// | participation | what the plugin sees | what a call pays |
/// |---|---|---|
/// | ``intercepts`` (the default) | every call, through ``StrataPlugin/intercept(_:next:)`` | a closure and the chain |
/// | ``observes`` | every call once it ended, through ``StrataPlugin/callDidFinish(_:result:)`` | two clock reads, and a ``CallTrail`` for a repository call |
/// | ``counts(_:timingOneIn:)`` | every call once it ended, through a ``CallCounter`` | the counter, and two clock reads for one call in the interval |
/// | ``observesFailures`` | the calls that threw, through ``StrataPlugin/callDidFail(_:error:)`` | nothing until a call throws |
/// | ``skipped`` | nothing | nothing |
///
/// When every plugin of a source or repository is skipped, its calls go straight to the wrapped source.
///
/// Two participations are equal when they are the same kind and, for counting, time alike.
public struct PluginParticipation: Sendable, Hashable, CustomStringConvertible {
    /// The participations, from the cheapest.
    @usableFromInline
    enum Kind: Int, Sendable, Hashable, Comparable {
        case skipped, failures, counts, observes, intercepts

        @usableFromInline
        static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    @usableFromInline let kind: Kind

    /// The counter of a counting plugin.
    let counter: (any CallCounter)?

    /// One call in how many a counting plugin asks to be timed; 1 for the other kinds.
    let timingInterval: Int

    private init(_ kind: Kind, counter: (any CallCounter)? = nil, timingInterval: Int = 1) {
        self.kind = kind
        self.counter = counter
        self.timingInterval = timingInterval
    }

    /// Every call is counted once it ended, by `counter`, with its outcome; one call in `interval` is timed.
    ///
    /// The cheapest way to see every call: no ``ObservedCall``, no task-local ``CallTrail`` (a repository read says
    /// itself whether it was a hit, a miss or a stale value served: ``GetRepository/getReportingOutcome(_:operation:)``),
    /// and the clock is read for the timed calls only. When another plugin of the same source or repository observes
    /// or intercepts, every call is timed. Calls are numbered per source or repository, across its plugins: with
    /// several counting plugins, the smallest interval applies to all. The interval is rounded up to a power of two
    /// (choosing a timed call is then a mask): 10 times one call in 16.
    ///
    /// - Parameters:
    ///   - counter: Receives every call; usually the plugin itself or one it made for this attachment.
    ///   - interval: One call in how many is timed (``CountedCall/duration``); 1 times every call. Values below 1
    ///     count as 1.
    public static func counts(_ counter: any CallCounter, timingOneIn interval: Int = 16) -> PluginParticipation {
        PluginParticipation(.counts, counter: counter, timingInterval: max(1, interval))
    }

    /// Whether two participations are the same kind and time alike.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.timingInterval == rhs.timingInterval
    }

    /// Hashes the kind and the timing interval.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(timingInterval)
    }

    /// Every call runs through ``StrataPlugin/intercept(_:next:)``: the plugin may change the outcome.
    public static let intercepts = PluginParticipation(.intercepts)

    /// Every call is reported once it ended, to ``StrataPlugin/callDidFinish(_:result:)``, with its outcome, origin
    /// and duration (``ObservedCall``); a data source call adds its step to the repository call's ``CallTrail``.
    public static let observes = PluginParticipation(.observes)

    /// Only calls that throw are reported, to ``StrataPlugin/callDidFail(_:error:)``; calls that return cost nothing,
    /// and a data source call adds no step to a ``CallTrail``.
    public static let observesFailures = PluginParticipation(.failures)

    /// The plugin is never called: a logger whose level is above every line the plugin writes, a plugin turned off.
    public static let skipped = PluginParticipation(.skipped)

    /// `intercepts`, `observes`, `counts(timingOneIn: N)`, `observesFailures` or `skipped`.
    public var description: String {
        switch kind {
        case .skipped: "skipped"
        case .failures: "observesFailures"
        case .counts: "counts(timingOneIn: \(timingInterval))"
        case .observes: "observes"
        case .intercepts: "intercepts"
        }
    }
}

/// Where a plugin is attached: the name it sees in ``PluginCall/source`` and whether it wraps a data source or a
/// repository.
public struct PluginAttachment: Sendable, Hashable {
    /// What the plugin wraps.
    public enum Kind: Sendable, Hashable {
        /// A data source (`PluggedDataSource`): its calls have no operation.
        case dataSource
        /// A repository (`PluggedRepository`): its calls have an operation.
        case repository
    }

    /// The name given to `plugins(_:name:)`, as in ``PluginCall/source``.
    public let name: String

    /// What the plugin wraps.
    public let kind: Kind

    /// Creates an attachment.
    ///
    /// - Parameters:
    ///   - name: The name of the source or repository.
    ///   - kind: Whether it is a data source or a repository.
    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// The attachment a call was made through: a repository when the call has an operation.
    ///
    /// - Parameter call: The call.
    public init(of call: PluginCall) {
        self.init(name: call.source, kind: call.operation == nil ? .dataSource : .repository)
    }
}
