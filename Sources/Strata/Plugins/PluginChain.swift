/// The plugins of one source or repository, sorted once when they are attached by how they take part
/// (``PluginParticipation``), so that a call pays only for what its plugins need.
///
/// A class, so that a plugged source or repository is its wrapped value and one reference: a call copies little.
@usableFromInline
final class PluginChain: Sendable {
    /// How calls run: the costliest participation of any plugin.
    @usableFromInline
    enum Mode: Sendable, Hashable {
        /// Every plugin is skipped: straight to the source.
        case direct
        /// Plugins only observe failures: straight to the source, and a thrown error is reported.
        case failures
        /// Plugins count (and may observe failures): the call is counted, one in ``timingInterval`` timed.
        case counts
        /// Plugins observe: the call is measured once and reported to each.
        case observes
        /// At least one plugin intercepts: the whole chain runs as middleware, observers in their places.
        case intercepts
    }

    /// How calls run.
    @usableFromInline let mode: Mode

    /// The plugins, outermost first, as given.
    let plugins: [any StrataPlugin]

    /// The name plugins see in ``PluginCall/source``.
    @usableFromInline let name: String

    /// The chain's number, which its calls carry (``PluginCall/attachment``).
    let attachment = PluginCall.newAttachment()

    /// Whether a call is measured or intercepted: when not, it goes straight to the source (failures reported).
    @inlinable var observesCalls: Bool { mode != .direct && mode != .failures }

    /// Whether plugins only count calls: a repository read then reports its own outcome.
    @inlinable var counts: Bool { mode == .counts }

    /// One call in how many is timed when plugins only count, less one: the smallest interval they ask for, rounded
    /// up to a power of two.
    let timingMask: Int

    /// About how many calls were counted so far (`AtomicCount.tick()`), to choose the timed ones.
    let callsCounted = AtomicCount()

    /// Whether a plugin intercepts calls: they then run through ``intercept(_:_:operation:value:_:)``.
    @inlinable var intercepts: Bool { mode == .intercepts }

    /// The plugins that observe (calls or failures), innermost first: the order they are told in.
    private let observers: [(plugin: any StrataPlugin, participation: PluginParticipation)]

    /// The counters of the plugins that count, and the plugins that observe failures, innermost first
    /// (``Mode/counts``).
    let counting: (counters: [CounterBox], failures: [any StrataPlugin])

    /// The counters as unmanaged references, which a call copies without retaining; ``counting`` keeps them alive.
    let counterReferences: [Unmanaged<CounterBox>]

    /// The reports of calls that returned, made once each (``Mode/counts``).
    let returnedReports: ReturnedCallReports

    /// The chain as middleware, outermost first (``Mode/intercepts``).
    let middleware: [any StrataPlugin]

    /// Sorts `plugins` for a source or repository of type `wrapped`, named `name` or else after that type.
    ///
    /// - Parameters:
    ///   - plugins: The plugins, outermost first.
    ///   - name: The name plugins see; the wrapped type's name when `nil`.
    ///   - wrapped: The type of the source or repository the plugins wrap.
    ///   - kind: Whether it is a data source or a repository.
    convenience init(
        _ plugins: [any StrataPlugin],
        name: String?,
        wrapping wrapped: Any.Type,
        kind: PluginAttachment.Kind
    ) {
        let attachment = PluginAttachment(name: name ?? String(describing: wrapped), kind: kind)
        self.init(plugins, attachment: attachment)
    }

    /// Sorts `plugins` for a source or repository.
    ///
    /// - Parameters:
    ///   - plugins: The plugins, outermost first.
    ///   - attachment: What they are attached to.
    init(_ plugins: [any StrataPlugin], attachment: PluginAttachment) {
        self.plugins = plugins
        name = attachment.name
        let taking = plugins.map { (plugin: $0, participation: $0.participation(in: attachment)) }
            .filter { $0.participation != .skipped }
        switch taking.map(\.participation.kind).max() {
        case nil: mode = .direct
        case .failures?: mode = .failures
        case .counts?: mode = .counts
        case .observes?: mode = .observes
        case .intercepts?, .skipped?: mode = .intercepts
        }
        observers = mode == .intercepts ? [] : taking.reversed()
        counting =
            mode != .counts
            ? ([], [])
            : (
                observers.compactMap { $0.participation.counter.map(CounterBox.init) },
                observers.filter { $0.participation.kind == .failures }.map(\.plugin)
            )
        counterReferences = counting.counters.map { Unmanaged.passUnretained($0) }
        returnedReports = ReturnedCallReports(source: attachment.name, counters: counting.counters)
        let counters = taking.lazy.filter { $0.participation.kind == .counts }
        let interval = counters.map(\.participation.timingInterval).min() ?? 1
        // A power of two, so that choosing the timed calls is a mask, not a division.
        timingMask = (1 << min(Int.bitWidth - 2, Int.bitWidth - (interval - 1).leadingZeroBitCount)) - 1
        middleware =
            mode != .intercepts
            ? []
            : taking.map { taking in
                taking.participation == .intercepts
                    ? taking.plugin : ObservingStep(plugin: taking.plugin, participation: taking.participation)
            }
    }

    /// Reports how a call ended to every observer, innermost first.
    @usableFromInline
    func report(_ observed: ObservedCall, _ result: (any Sendable)?) {
        for (plugin, participation) in observers {
            switch participation.kind {
            case .observes: plugin.callDidFinish(observed, result: result)
            case .counts: participation.counter?.count(CountedCall(observed))
            case .failures, .skipped, .intercepts:
                if let error = observed.error { plugin.callDidFail(observed.call, error: error) }
            }
        }
    }

    /// Reports a counted call to every counter, and to the plugins that observe failures when it threw, innermost
    /// first; a data source call adds its step to the repository call's trail, if one is bound.
    ///
    /// - Parameters:
    ///   - counted: The call and how it ended.
    ///   - query: The query of the call.
    ///   - value: The value being written, if any.
    @usableFromInline
    func report(
        _ counted: CountedCall,
        _ query: any Query,
        _ operation: (any RepositoryOperation)?,
        value: @autoclosure () -> (any Sendable)?
    ) {
        var call: PluginCall? = nil
        func described() -> PluginCall {
            if let call { return call }
            let made = PluginCall(
                method: counted.method,
                query: query,
                operation: operation,
                source: name,
                value: value()
            )
            call = made
            return made
        }
        if operation == nil, CallTrail.mayBeBound { CallTrail.record(described(), error: counted.error) }
        countAll(counted)
        if let error = counted.error {
            for plugin in counting.failures { plugin.callDidFail(described(), error: error) }
        }
    }

    /// Reports a call that threw to every plugin that observes failures, innermost first.
    @usableFromInline
    func reportFailure(_ call: PluginCall, _ error: any Error) {
        for (plugin, _) in observers { plugin.callDidFail(call, error: error) }
    }
}
