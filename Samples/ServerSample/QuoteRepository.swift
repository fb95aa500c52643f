#if ServerSample
    import AsyncHTTPClient
    import Foundation
    import Logging
    import Metrics
    import Strata
    import StrataLogging
    import StrataMemory
    import StrataAsyncHTTPClient
    import StrataMetrics
    import StrataNetwork
    import StrataTracing
    import Tracing

    /// The sample's one repository: quotes in memory over an HTTP source, with logging, metrics and tracing wired in.
    enum QuoteRepository {
        /// The repository the `/quotes/:id` route reads through.
        typealias Repository = PluggedRepository<
            CacheRepository<
                PluggedDataSource<NetworkGetDataSource<String>>, PluggedDataSource<MemoryDataSource<String>>
            >
        >

        /// The client of the upstream calls, for the whole process (never shut down, as `HTTPClient.shared`):
        /// AsyncHTTPClient's own tracing off (`AsyncHTTPClientTransport.defaultConfiguration`), since
        /// `TracingTransport` traces each request, once, under the caller's span. `HTTPClient.shared` would take the
        /// tracer a server bootstraps and record a second trace of each request, its full URL and query included.
        static let upstreamClient = AsyncHTTPClient.HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: AsyncHTTPClientTransport.defaultConfiguration
        )

        /// Builds the repository over the upstream API at `upstream` (a function: the server learns its port only once
        /// it listens).
        ///
        /// - Parameters:
        ///   - upstream: The base URL of the quotes API.
        ///   - logger: Where each call's line goes.
        ///   - metrics: Where the counters, timers and gauges go.
        ///   - tracer: Where the spans go.
        static func make(
            upstream: @escaping @Sendable () -> URL,
            logger: Logger,
            metrics: any MetricsFactory,
            tracer: any Tracer
        ) -> Repository {
            // Observability: one plugin per concern, given to the repository and to both of its sources.
            let plugins: [any StrataPlugin] = [
                LoggerPlugin(logger: logger, level: .info),
                SwiftMetricsPlugin(factory: metrics),
                TracingPlugin(tracer: tracer),
            ]
            var memory = MemoryDataSource<String>.Configuration(countLimit: 1_000, timeToLive: .seconds(60))
            memory.evictionObserver = StoreMetrics(store: "quotes", factory: metrics)
            // The upstream calls go through one AsyncHTTPClient client for the process, each in a client span whose
            // context travels in the request's headers.
            let transport = AsyncHTTPClientTransport(client: upstreamClient)
            let client = StrataNetwork.HTTPClient(transport: TracingTransport(transport, tracer: tracer))
            let api = NetworkGetDataSource<String>(client: client) { query in
                guard let id = (query as? KeyQuery)?.key else {
                    throw StrataError.queryNotSupported(query, by: Self.self)
                }
                return StrataNetwork.HTTPRequest(.get, url: upstream().appendingPathComponent("upstream/quotes/\(id)"))
            }
            return CacheRepository(
                main: api.plugins(plugins, name: "quotes-api"),
                cache: MemoryDataSource(configuration: memory).plugins(plugins, name: "quotes-memory")
            ).plugins(plugins, name: "quotes")
        }
    }
#endif
