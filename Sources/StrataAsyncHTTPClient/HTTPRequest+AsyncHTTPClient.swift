#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import NIOHTTP1
    import StrataNetwork

    extension StrataNetwork.HTTPRequest {
        /// The size of the chunks a body is written in: AsyncHTTPClient reports each one written, which the idle
        /// timeout counts as activity.
        static let uploadChunkSize = 64 * 1024

        /// The AsyncHTTPClient request for this (validated) request, to `url`.
        ///
        /// The user and password `url` may carry go as Basic credentials unless the request sets its own
        /// `Authorization` (``Foundation/URL/basicAuthorization()``), as URLSession sends them: AsyncHTTPClient itself
        /// sends none. A redirect to another origin drops them, as it drops the request's own `Authorization`.
        func clientRequest(url: URL) throws -> AsyncHTTPClient.HTTPClient.Request {
            var fields = NIOHTTP1.HTTPHeaders()
            for field in headers.fields { fields.add(name: field.name, value: field.value) }
            if !fields.contains(name: "Authorization"), let credentials = try url.basicAuthorization() {
                fields.add(name: "Authorization", value: credentials)
            }
            return try AsyncHTTPClient.HTTPClient.Request(
                url: url,
                method: NIOHTTP1.HTTPMethod(rawValue: method.rawValue),
                headers: fields,
                body: body.map { body in
                    .stream(contentLength: Int64(body.count)) { writer in Self.write(body, from: 0, to: writer) }
                }
            )
        }

        /// Writes `body` from `offset` on, one chunk after the other.
        private static func write(
            _ body: Data,
            from offset: Int,
            to writer: AsyncHTTPClient.HTTPClient.Body.StreamWriter
        ) -> EventLoopFuture<Void> {
            let end = offset + Swift.min(uploadChunkSize, body.count - offset)
            let chunk = ByteBuffer(bytes: body[(body.startIndex + offset)..<(body.startIndex + end)])
            let written = writer.write(.byteBuffer(chunk))
            return end < body.count ? written.flatMap { write(body, from: end, to: writer) } : written
        }
    }
#endif
