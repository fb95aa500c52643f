extension Result where Failure == any Error {
    /// The outcome of an async throwing body.
    public init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }

    /// The error of a failure; `nil` for a success.
    public var failure: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
