#if !AsyncHTTPClient
    #warning(
        """
        StrataAsyncHTTPClient is empty without the AsyncHTTPClient trait: depend on Strata with \
        `traits: ["AsyncHTTPClient"]` (or build with `swift build --traits AsyncHTTPClient`).
        """
    )
#endif
