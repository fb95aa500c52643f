import StrataNetwork
import Testing

#if AsyncHTTPClient
    import StrataAsyncHTTPClient
#endif

/// A transport that the shared transport tests run against: every test that takes one runs once per transport
/// of ``all`` — URLSession's always, AsyncHTTPClient's when the `AsyncHTTPClient` trait is enabled
/// (`swift test --traits AsyncHTTPClient`).
///
/// They are the tests of what a transport promises (``HTTPTransport``): the body limit while the body streams,
/// both deadlines to the millisecond, header validation, downloads with progress, 304s without a file,
/// cancellation, and the hostile servers of `RawServer`.
struct TransportUnderTest: Sendable, CustomTestStringConvertible {
    /// The transport's name, as the test's argument shows it.
    let name: String
    private let factory: @Sendable () -> any MeasuredTransport

    /// A new transport of this kind.
    func make() -> any MeasuredTransport { factory() }

    var testDescription: String { name }

    static let urlSession = TransportUnderTest(name: "URLSessionTransport") { URLSessionTransport() }

    #if AsyncHTTPClient
        /// A transport with a client of its own (shut down when the transport goes), so that each test's
        /// high-water mark is its own.
        static let asyncHTTPClient = TransportUnderTest(name: "AsyncHTTPClientTransport") {
            AsyncHTTPClientTransport()
        }

        static let all = [urlSession, asyncHTTPClient]
    #else
        static let all = [urlSession]
    #endif
}

/// A transport that reports the most body bytes one of its requests has held, in memory or in its file, and whose
/// deadline clock a test moves on.
protocol MeasuredTransport: HTTPTransport {
    var peakBodyBytes: Int { get }

    /// Moves the clock the transport's deadlines are read on, and has it look at them at once.
    func advanceDeadlineClock(by duration: Duration)
}

extension URLSessionTransport: MeasuredTransport {}

#if AsyncHTTPClient
    extension AsyncHTTPClientTransport: MeasuredTransport {}
#endif
