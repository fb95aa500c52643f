#if ServerSample
    import Foundation
    import Hummingbird
    import Logging
    import Metrics
    import Strata
    import Tracing

    /// The sample server: `/quotes/:id` served through a ``QuoteRepository`` whose main source is this server's own
    /// `/upstream/quotes/:id`, the stand-in for a slow API behind it.
    enum QuoteServer {
        /// The quotes the upstream API knows.
        static let quotes = ["1": "Simple things should be simple.", "2": "Make it work, make it right, make it fast."]

        /// Builds the application on 127.0.0.1.
        ///
        /// - Parameters:
        ///   - port: The port; 0 for any free one.
        ///   - logger: The logger of the server and of the repository.
        ///   - metrics: Where the metrics go.
        ///   - tracer: Where the spans go.
        ///   - onListening: Called with the port once the server listens.
        static func application(
            port: Int = 0,
            logger: Logger,
            metrics: any MetricsFactory,
            tracer: any Tracer,
            onListening: @escaping @Sendable (Int) -> Void = { _ in }
        ) -> some ApplicationProtocol {
            let boundPort = Locked(port)
            let repository = QuoteRepository.make(
                upstream: {
                    URL(string: "http://127.0.0.1:\(boundPort.withLock { $0 })/") ?? URL(fileURLWithPath: "/")
                },
                logger: logger,
                metrics: metrics,
                tracer: tracer
            )
            let router = Router()
            router.get("upstream/quotes/:id") { _, context -> String in
                guard let quote = quotes[try context.parameters.require("id")] else { throw HTTPError(.notFound) }
                return "\"\(quote)\""
            }
            router.get("quotes/:id") { _, context -> String in
                do {
                    return try await repository.get(
                        KeyQuery(try context.parameters.require("id")),
                        operation: .cacheSync
                    )
                } catch let error as StrataError where error.code == .notFound {
                    throw HTTPError(.notFound)
                }
            }
            return Application(
                router: router,
                configuration: .init(address: .hostname("127.0.0.1", port: port)),
                onServerRunning: { channel in
                    let port = channel.localAddress?.port ?? port
                    boundPort.withLock { $0 = port }
                    onListening(port)
                },
                logger: logger
            )
        }
    }
#endif
