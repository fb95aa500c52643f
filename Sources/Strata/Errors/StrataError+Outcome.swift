extension StrataError {
    /// Whether the failed call may still have taken effect at the source: a write sent to a server that then timed
    /// out, dropped the connection or failed inside, or whose gateway lost the answer (any `5xx` but `501`, `503` and `505`)
    /// may have been carried out; one that never reached the server, or that the server refused, was not.
    ///
    /// `false` unless the source says so: StrataNetwork's transports and HTTP statuses do, so does a value mapping
    /// (``MappedDataSource``, ``MappedRepository``) whose write's returned value does not convert, and a source of an
    /// app's own sets it on the error it throws. Read down the chain of ``underlying`` Strata errors, so an error that
    /// wraps the source's keeps its word.
    ///
    /// ``CacheRepository`` reads it when main's write fails (a `.mainSync` put or delete): the cache's copy of the keys
    /// goes, so that no read serves a value older than main's may now be. A write main surely did not take (the
    /// device is offline, the server refused it) leaves the cache as it was. A write that took the cache first
    /// (`.cacheSync`) and then failed at main throws main's error with it set when that is a ``StrataError`` (an
    /// error of another type is thrown as it is, with no flag): the repository's reads serve the value.
    ///
    /// ```swift
    /// var error = StrataError(.network, "The gRPC call timed out after the request was sent")
    /// error.mayHaveTakenEffect = true  // the server may have carried it out
    /// ```
    public var mayHaveTakenEffect: Bool {
        get {
            var next: StrataError? = self
            while let error = next {
                if error.mayHaveTakenEffectHere { return true }
                next = error.underlying as? StrataError
            }
            return false
        }
        set { mayHaveTakenEffectHere = newValue }
    }
}

extension StrataError {
    /// Whether a write that failed with `error` may have taken effect at its source all the same: the calling task was
    /// cancelled while the write was on its way, or the error says so (``mayHaveTakenEffect``). How a
    /// ``CacheRepository`` reads main's failed write, and StrataCache's `CachedFetcher` an unsafe request's.
    ///
    /// - Parameter error: The write's failure.
    package static func writeMayHaveTakenEffect(after error: any Error) -> Bool {
        Task.isCancelled || (error as? StrataError)?.mayHaveTakenEffect == true
    }

    /// Reads, with `read`, the answer to a write its source took (a response body to decode, a returned value to
    /// convert): a ``StrataError`` it throws says ``mayHaveTakenEffect``, for the write did. Any other error is thrown
    /// as it is.
    ///
    /// - Parameter read: Reads the answer.
    /// - Returns: What `read` returned.
    package static func readingAnswer<Result>(toTakenWrite read: () throws -> Result) throws -> Result {
        do {
            return try read()
        } catch var error as StrataError {
            error.mayHaveTakenEffect = true
            throw error
        }
    }
}
