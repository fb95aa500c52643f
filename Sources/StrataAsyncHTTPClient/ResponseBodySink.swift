#if AsyncHTTPClient
    import Foundation
    import Strata
    import StrataNetwork

    /// Where one response's body goes, chunk by chunk, never past its limit: memory, a download's file (for a
    /// 2xx), or, for a download's other statuses (and a send's that keeps a success only), the first bytes kept for
    /// the error.
    struct ResponseBodySink {
        private enum Target {
            case memory
            case file(DownloadFileWriter)
            /// A download's non-2xx body (or a send's that keeps a success only), or a redirect's the transport
            /// follows: its first bytes kept; the request ends once they are in, but for a short body announced as
            /// such, read on to its end.
            case prefix
        }

        private var target: Target
        private let exchange: HTTPExchange
        private let status: Int
        private let headers: HTTPHeaders
        /// The `Content-Length`, when the body can be held to it.
        private let expected: Int64?
        /// The `Content-Length` of an error's body, whose first bytes are kept
        /// (``HTTPExchange/drainsErrorBody(announced:received:)``).
        private let errorAnnounced: Int64?
        /// The bytes of an error's body read, kept in ``body`` or dropped.
        private var errorBytes = 0
        /// Whether the body is a redirect's that the transport follows (``init(_:status:headers:isRedirect:)``).
        let isRedirect: Bool
        /// The body bytes accepted (in ``body`` or in the file); never more than the exchange's limit.
        private(set) var received = 0
        /// The body in memory, or an error body's first bytes.
        private(set) var body = Data()

        /// Prepares for a response's body: fails with ``Strata/StrataError/Code/tooLarge`` when its
        /// `Content-Length` exceeds the limit (before any file is created), and creates a download's file for a
        /// 2xx.
        ///
        /// - Parameters:
        ///   - exchange: The request, where its body goes, its limit and its deadlines.
        ///   - status: The response's status.
        ///   - headers: The response's headers.
        ///   - isRedirect: Whether the response is a redirect the transport follows: its body is not the answer.
        init(_ exchange: HTTPExchange, status: Int, headers: HTTPHeaders, isRedirect: Bool = false) throws {
            self.exchange = exchange
            self.status = status
            self.headers = headers
            self.isRedirect = isRedirect
            let isSuccess = (200..<300).contains(status)
            let isPrefix =
                switch exchange.destination {
                case _ where isRedirect: true
                case .memory: false
                case .successInMemory, .file: !isSuccess
                }
            let announced =
                exchange.bodyIsCountable(status: status, headers: headers)
                ? headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } : nil
            self.expected = isPrefix ? nil : announced
            self.errorAnnounced = isPrefix ? announced : nil
            if let expected, expected > Int64(exchange.limit) {
                throw exchange.tooLarge(contentLength: expected, status: status, headers: headers)
            }
            switch exchange.destination {
            case .memory, .successInMemory:
                target = isPrefix ? .prefix : .memory
                // A length within the limit is room reserved once (up to a bound: the length is only announced),
                // instead of growing the body chunk by chunk.
                if let expected { body.reserveCapacity(HTTPExchange.reservation(forContentLength: expected)) }
            case .file(let url, _):
                target = isSuccess ? .file(try DownloadFile.create(at: url)) : .prefix
            }
        }

        /// Adds a chunk to the body, or counts it for the file and returns the file's writer, which the caller
        /// writes it with once it has let go of its lock; fails with ``Strata/StrataError/Code/tooLarge`` when the
        /// chunk would take the body past the limit (the chunk is then dropped).
        mutating func accept(_ chunk: UnsafeRawBufferPointer) throws -> DownloadFileWriter? {
            if case .prefix = target {
                let room = HTTPFailure.bodyPrefixLimit - body.count
                if room > 0 { body.append(contentsOf: chunk.prefix(room)) }
                errorBytes += chunk.count
                return nil
            }
            // `received` never exceeds `limit`, so the subtraction cannot overflow.
            guard chunk.count <= exchange.limit - received else {
                throw exchange.tooLarge(status: status, headers: headers)
            }
            received += chunk.count
            if case .file(let writer) = target { return writer }
            body.append(contentsOf: chunk)
            return nil
        }

        /// The progress to report after a chunk; `nil` for an error's body, which is not downloaded.
        var progress: DownloadProgress? {
            if case .prefix = target { return nil }
            return DownloadProgress(bytesReceived: Int64(received), expectedBytes: expected)
        }

        /// Checks, once the body has ended, that it is as long as its `Content-Length` said.
        func finish() throws {
            guard let expected, Int64(received) < expected else { return }
            throw exchange.bodyEnded(after: received, of: expected)
        }

        /// Whether the body is an error's, whose first bytes only are kept.
        var isErrorBody: Bool {
            if case .prefix = target { true } else { false }
        }

        /// Whether this is a download's error body whose first bytes are all in: the request needs no more of it.
        var hasErrorPrefix: Bool {
            guard case .prefix = target else { return false }
            return body.count >= HTTPFailure.bodyPrefixLimit
                && !HTTPExchange.drainsErrorBody(announced: errorAnnounced, received: errorBytes)
        }

        /// Closes the file, if any.
        func close() {
            if case .file(let writer) = target { writer.close() }
        }

        /// Closes the file, if any, and removes it: for a response whose request ended before it was taken in.
        func discard() {
            guard case .file(let writer) = target, case .file(let url, _) = exchange.destination else { return }
            writer.close()
            DownloadFile.remove(at: url)
        }
    }
#endif
