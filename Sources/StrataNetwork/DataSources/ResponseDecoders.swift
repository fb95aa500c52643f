import Foundation
import Strata

/// The two mappers a network source decodes response bodies with, one value's and a list's, and the decoding
/// itself: a body that does not decode is ``Strata/StrataError/Code/dataSerialization``, naming the request.
struct ResponseDecoders<Value: Sendable>: Sendable {
    /// Decodes the body of a one-value call (`get`, `put`).
    let one: any Mapper<Data, Value>

    /// Decodes the body of a list call (`getAll`, `putAll`).
    let all: any Mapper<Data, [Value]>

    /// The value in `body`, the body of the response to `request`.
    func value(in body: Data, of request: HTTPRequest) throws -> Value {
        try HTTPClient.decode(body, with: self.one, request: request)
    }

    /// The values in `body`, the body of the response to `request`.
    func values(in body: Data, of request: HTTPRequest) throws -> [Value] {
        try HTTPClient.decode(body, with: self.all, request: request)
    }
}
