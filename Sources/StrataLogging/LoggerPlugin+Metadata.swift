#if Logging
    import Logging
    import Strata

    extension LoggerPlugin {
        /// The line's metadata: the indexable keys, and the query and value only when values are logged.
        func metadata(_ observed: ObservedCall, result: (any Sendable)?) -> Logger.Metadata {
            let call = observed.call
            var metadata: Logger.Metadata = [
                "strata.source": "\(call.source)",
                "strata.method": "\(call.method.rawValue)",
                "strata.query": "\(includesValues ? Self.loggable(call.queryDescription) : observed.queryKind)",
                "strata.outcome": "\(observed.outcome)",
                "strata.duration_ms": .stringConvertible(Double(observed.durationNanoseconds) / 1e6),
            ]
            if let operation = call.operationName { metadata["strata.operation"] = "\(operation)" }
            if let origin = observed.origin { metadata["strata.origin"] = "\(origin)" }
            if let code = observed.errorCode { metadata["strata.error.code"] = "\(code)" }
            if observed.outcome == .error,
                let message = includesValues ? observed.errorMessage : observed.redactedErrorMessage
            {
                metadata["strata.error"] = "\(message)"
            }
            if includesValues, let value = result ?? call.value { metadata["strata.value"] = "\(Self.loggable(value))" }
            return metadata
        }

        /// The most Unicode scalars (characters, in most text) of a query or a value a line shows.
        static var loggedTextLimit: Int { LoggedText.limit }

        /// A query's or a value's text as a line shows it: one line, at most ``loggedTextLimit`` Unicode scalars (the
        /// core's rule for every logging plugin).
        static func loggable(_ value: Any) -> String { LoggedText.of(value) }
    }
#endif
