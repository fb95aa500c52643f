import Strata
import Testing

/// Runs `body` and returns the ``Strata/StrataError`` it throws, or `nil` when it returns.
///
/// Another error fails the test (an issue recorded where this is called) and is returned as `nil`, so that no
/// expectation on the result can pass by mistake.
///
/// - Parameters:
///   - sourceLocation: Where an issue for another error is recorded: the caller's line.
///   - body: The code that should throw.
public func strataError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> StrataError? {
    do {
        try await body()
        return nil
    } catch let error as StrataError {
        return error
    } catch {
        Issue.record("not a StrataError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
