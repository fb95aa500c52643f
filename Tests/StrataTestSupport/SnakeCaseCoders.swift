import Foundation

/// JSON coders that convert keys to and from snake case, as an app that shares its coders with a server API has them:
/// a store written with them is one that plain coders cannot read.
public enum SnakeCaseCoders: Sendable {
    /// Makes an encoder that writes keys in snake case.
    public static let makeEncoder: @Sendable () -> JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }

    /// Makes a decoder that reads keys in snake case.
    public static let makeDecoder: @Sendable () -> JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
