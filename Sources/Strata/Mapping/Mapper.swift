import Foundation

/// Converts a value of one type into another, throwing when it cannot.
///
/// Mappers sit around data sources and repositories (`source.mapped(to:from:)`) so that a source of
/// `Data` can serve `User` values. A failure surfaces as ``StrataError/Code/dataSerialization``.
public protocol Mapper<From, To>: Sendable {
    /// The input type.
    associatedtype From

    /// The output type.
    associatedtype To

    /// Converts a value.
    ///
    /// - Parameter from: The value to convert.
    /// - Returns: The converted value.
    /// - Throws: Any error; callers wrap it as ``StrataError/Code/dataSerialization``.
    func map(_ from: From) throws -> To
}

extension Mapper {
    /// Converts a value, wrapping any failure as ``StrataError/Code/dataSerialization``.
    ///
    /// - Parameter from: The value to convert.
    func mapOrThrowSerialization(_ from: From) throws -> To {
        do {
            return try map(from)
        } catch {
            throw StrataError.serialization(error, "\(Self.self) could not map a \(From.self) to \(To.self)")
        }
    }
}

/// A mapper made of a closure.
public struct ClosureMapper<From, To>: Mapper {
    private let transform: @Sendable (From) throws -> To

    /// Creates a mapper from a closure.
    ///
    /// - Parameter transform: Converts a value or throws.
    public init(_ transform: @escaping @Sendable (From) throws -> To) {
        self.transform = transform
    }

    /// Calls the closure.
    public func map(_ from: From) throws -> To { try transform(from) }
}

/// The mapper that returns its input.
public struct IdentityMapper<Value>: Mapper {
    /// Creates the mapper.
    public init() {}

    /// Returns the value unchanged.
    public func map(_ from: Value) -> Value { from }
}

/// Decodes JSON `Data` into a `Decodable` value.
public struct DataToDecodableMapper<To: Decodable>: Mapper {
    private let makeDecoder: @Sendable () -> JSONDecoder

    /// Creates the mapper.
    ///
    /// - Parameter decoder: Makes the decoder to use (a fresh one per call, as `JSONDecoder` is not
    ///   `Sendable`); the default is a plain `JSONDecoder`.
    public init(decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }) {
        self.makeDecoder = decoder
    }

    /// Decodes the data.
    public func map(_ from: Data) throws -> To {
        try makeDecoder().decode(To.self, from: from)
    }
}

/// Encodes an `Encodable` value as JSON `Data`.
public struct EncodableToDataMapper<From: Encodable>: Mapper {
    private let makeEncoder: @Sendable () -> JSONEncoder

    /// Creates the mapper.
    ///
    /// - Parameter encoder: Makes the encoder to use (a fresh one per call, as `JSONEncoder` is not
    ///   `Sendable`); the default is a plain `JSONEncoder`.
    public init(encoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() }) {
        self.makeEncoder = encoder
    }

    /// Encodes the value.
    public func map(_ from: From) throws -> Data {
        try makeEncoder().encode(from)
    }
}
