import Foundation
import Strata

extension BlobCache {
    /// Returns the blob at `url` as UTF-8 text.
    ///
    /// - Parameter url: An absolute URL, or one relative to ``baseURL``.
    /// - Throws: As ``fetch(from:)->Data``, and ``Strata/StrataError/Code/dataSerialization`` when the blob is
    ///   not valid UTF-8.
    @_disfavoredOverload
    public func fetch(from url: URL) async throws -> String {
        let data: Data = try await fetch(from: url)
        guard let text = String(data: data, encoding: .utf8) else {
            throw StrataError(.dataSerialization, "The blob at \(url.describedForErrors) is not valid UTF-8")
        }
        return text
    }

    /// Returns the blob at `url` decoded from JSON.
    ///
    /// - Parameters:
    ///   - url: An absolute URL, or one relative to ``baseURL``.
    ///   - type: The type to decode.
    ///   - decoder: The decoder.
    /// - Throws: As ``fetch(from:)->Data``, and ``Strata/StrataError/Code/dataSerialization`` when decoding
    ///   fails.
    public func fetch<Value: Decodable>(
        from url: URL,
        as type: Value.Type,
        decoder: JSONDecoder = JSONDecoder()
    ) async throws -> Value {
        let data: Data = try await fetch(from: url)
        do {
            return try decoder.decode(Value.self, from: data)
        } catch {
            throw StrataError.serialization(
                error,
                "Decoding the blob at \(url.describedForErrors) as \(Value.self) failed"
            )
        }
    }

    /// Returns the blob at `url` converted by a mapper, such as a ``Strata/DataToDecodableMapper`` or an image
    /// decoder of your own.
    ///
    /// - Parameters:
    ///   - url: An absolute URL, or one relative to ``baseURL``.
    ///   - mapper: Converts the bytes.
    /// - Throws: As ``fetch(from:)->Data``, and ``Strata/StrataError/Code/dataSerialization`` when the
    ///   mapper fails.
    public func fetch<Value>(from url: URL, decodingWith mapper: some Mapper<Data, Value>) async throws -> Value {
        let data: Data = try await fetch(from: url)
        do {
            return try mapper.map(data)
        } catch {
            throw StrataError.serialization(
                error,
                "Decoding the blob at \(url.describedForErrors) as \(Value.self) failed"
            )
        }
    }

    /// Returns the blob at `url` converted by a closure.
    ///
    /// - Parameters:
    ///   - url: An absolute URL, or one relative to ``baseURL``.
    ///   - decode: Converts the bytes.
    /// - Throws: As ``fetch(from:decodingWith:)``.
    public func fetch<Value>(from url: URL, decode: @escaping @Sendable (Data) throws -> Value) async throws -> Value {
        try await fetch(from: url, decodingWith: ClosureMapper(decode))
    }
}
