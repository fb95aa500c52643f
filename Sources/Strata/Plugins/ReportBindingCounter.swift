/// A counter that finds, once, where every call of one kind is counted, instead of looking it up per call.
///
/// A chain hands every call that returned with the same method, operation and outcome the same report: a counter
/// that keeps a series per kind of call, such as `SwiftMetricsPlugin`, gives the chain that series when the report
/// is made, and each such call then goes straight to it with nothing but its duration, when it was timed. A call
/// that threw still goes to the counter itself.
package protocol ReportBindingCounter: CallCounter {
    /// The series for every call with `report`'s source, method, operation and outcome that returned; called when
    /// the report is made, outside the chain's lock (it may run a metrics factory of the user's): two calls that make
    /// one report at once may each ask, and the first report published is kept, so it must give the same series.
    ///
    /// - Parameter report: The report such calls are handed (without a duration).
    /// - Returns: A series whose ``ReturnedCallSeries/countReturned(nanoseconds:)`` counts such a call as the
    ///   receiver's ``CallCounter/count(_:)`` would.
    func counter(forEvery report: CountedCall) -> any ReturnedCallSeries
}

/// Where a ``ReportBindingCounter`` counts every call of one report: a class, so that the chain calls it through a
/// reference, with no ``CountedCall`` built and no existential opened per call.
package protocol ReturnedCallSeries: AnyObject, Sendable {
    /// Counts one call of the report that returned.
    ///
    /// - Parameter nanoseconds: How long the call took, in whole nanoseconds, when it was timed; `nil` when not.
    func countReturned(nanoseconds: Int64?)
}
