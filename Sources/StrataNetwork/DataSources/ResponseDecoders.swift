import Foundation
import Strata

/// The two mappers a network source decodes response bodies with, one value's and a list's, and the decoding
/// itself: a body that does not decode is ``Strata/StrataError/Code/dataSerialization``, naming the request.
struct ResponseDecoders<Value: Sendable>: Sendable {
    /// Decodes the body of a one-value call (`get`, `put`).
    let one: any Mapper<Data, Value>

    /// Decodes the body of a list call (`getAll`, `putAll`).
    let all: any Mapper<Data, [Value]>

    /// The value in the body of `response`, the response to `request`.
    func value(in response: HTTPResponse, of request: HTTPRequest) throws -> Value {
        try HTTPClient.decode(response, with: self.one, request: request)
    }

    /// The values in the body of `response`, the response to `request`.
    func values(in response: HTTPResponse, of request: HTTPRequest) throws -> [Value] {
        try HTTPClient.decode(response, with: self.all, request: request)
    }
}
