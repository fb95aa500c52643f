import Foundation
import StrataNetwork
internal import StrataSupport

extension CacheReference {
    /// The reference a server's response makes: its body, and as its hash the `ETag`, or a 128-bit FNV-1a hash of
    /// the body when there is none or it is longer than `ConditionalHeaders.maximumStoredEntityTagLength` bytes.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - identifier: The reference's identifier.
    ///   - maxAge: How long it stays valid, in seconds; `nil` for the manager's default.
    ///   - timeOfCreation: When it was received.
    ///   - initialAge: How old it was when it arrived (`HTTPFreshness.initialAge`); `nil` for none.
    ///   - variedFields: The request's values of the fields the response varied on; `nil` (or empty) for none.
    init(
        response: HTTPResponse,
        identifier: String,
        maxAge: Int?,
        timeOfCreation: Date,
        initialAge: Duration? = nil,
        variedFields: [String: [String]]? = nil
    ) {
        self.init(
            identifier: identifier,
            data: response.body,
            hash: response.eTag.flatMap { $0.utf8.count <= ConditionalHeaders.maximumStoredEntityTagLength ? $0 : nil }
                ?? FNV1a128.hex(bytes: response.body),
            maxAge: maxAge,
            timeOfCreation: timeOfCreation,
            initialAge: initialAge.map(wholeSeconds),
            variedFields: variedFields?.isEmpty == false ? variedFields : nil
        )
    }
}
