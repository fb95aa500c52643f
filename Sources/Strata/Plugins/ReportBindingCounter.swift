/// A counter that finds, once, where every call of one kind is counted, instead of looking it up per call.
///
/// A chain hands every call that returned with the same method, operation and outcome the same report (a copy with
/// the duration when the call was timed): a counter that keeps a series per kind of call, such as
/// `SwiftMetricsPlugin`, gives the chain that series' counter when the report is made, and each such call then goes
/// straight to it. A call that threw still goes to the counter itself.
package protocol ReportBindingCounter: CallCounter {
    /// The counter for every call with `report`'s source, method, operation and outcome that returned; called when
    /// the report is made, outside the chain's lock (it may run a metrics factory of the user's): two calls that make
    /// one report at once may each ask, and the first report published is kept, so it must give the same series.
    ///
    /// - Parameter report: The report such calls are handed (without its duration when one was timed).
    /// - Returns: A counter whose ``CallCounter/count(_:)`` counts such a call as the receiver would.
    func counter(forEvery report: CountedCall) -> any CallCounter
}
