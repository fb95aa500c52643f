#if ServerSample
    import Logging
    import Metrics
    import Tracing

    /// Runs the sample server on 127.0.0.1:8080 until SIGINT or SIGTERM: `curl http://127.0.0.1:8080/quotes/1`.
    @main
    struct ServerSampleMain {
        static func main() async throws {
            // A real server bootstraps LoggingSystem, MetricsSystem and InstrumentationSystem once, here; the
            // defaults write logs to standard error and drop metrics and spans.
            var logger = Logger(label: "strata.server-sample")
            logger.logLevel = .info
            let app = QuoteServer.application(
                port: 8080,
                logger: logger,
                metrics: MetricsSystem.factory,
                tracer: InstrumentationSystem.tracer
            )
            try await app.runService()
        }
    }
#else
    #warning("The server sample needs the ServerSample trait: swift run --traits ServerSample StrataServerSample.")

    @main
    struct ServerSampleMain {
        static func main() {
            print("Build with the ServerSample trait: swift run --traits ServerSample StrataServerSample")
        }
    }
#endif
