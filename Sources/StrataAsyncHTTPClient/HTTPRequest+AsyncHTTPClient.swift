#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import NIOHTTP1
    import StrataNetwork

    extension StrataNetwork.HTTPRequest {
        /// The bodies sent in one piece; larger ones are sent in chunks of this size, each one pulled when the
        /// one before has been written, so that the idle timeout sees the upload move.
        static let uploadChunkSize = 64 * 1024

        /// The AsyncHTTPClient request for this (validated) request, to `url`.
        func clientRequest(url: URL, activity: TransferActivity) -> HTTPClientRequest {
            var outgoing = HTTPClientRequest(url: url.absoluteString)
            outgoing.method = NIOHTTP1.HTTPMethod(rawValue: method.rawValue)
            for field in headers.fields { outgoing.headers.add(name: field.name, value: field.value) }
            if let body {
                outgoing.body =
                    body.count <= Self.uploadChunkSize
                    ? .bytes(ByteBuffer(bytes: body))
                    : .stream(UploadChunks(data: body, activity: activity), length: .known(Int64(body.count)))
            }
            return outgoing
        }
    }

    /// A request body as chunks of ``StrataNetwork/HTTPRequest/uploadChunkSize`` bytes; pulling a chunk (the one
    /// before it is written) counts as activity.
    struct UploadChunks: AsyncSequence, Sendable {
        typealias Element = ByteBuffer

        let data: Data
        let activity: TransferActivity

        struct AsyncIterator: AsyncIteratorProtocol {
            let data: Data
            let activity: TransferActivity
            var offset = 0

            mutating func next() async -> ByteBuffer? {
                guard offset < data.count else { return nil }
                activity.touch()
                let end = offset + Swift.min(HTTPRequest.uploadChunkSize, data.count - offset)
                defer { offset = end }
                return ByteBuffer(bytes: data[(data.startIndex + offset)..<(data.startIndex + end)])
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(data: data, activity: activity)
        }
    }
#endif
