/// A plugin's counter, held so that a counted call reaches it without copying the existential.
///
/// ``PluginChain`` keeps the boxes and calls them through unmanaged references (``PluginChain/countAll(_:)``);
/// inside ``count(_:)`` the counter is opened where the box stores it.
final class CounterBox: Sendable {
    /// The counter.
    let counter: any CallCounter

    /// Boxes `counter`.
    init(_ counter: any CallCounter) { self.counter = counter }

    /// Hands `counted` to the counter.
    func count(_ counted: CountedCall) { counter.count(counted) }
}
