#if !Postgres
    #warning(
        "StrataPostgres is empty: enable the package trait Postgres (swift build --traits Postgres, or traits: [\"Postgres\"] on your .package line)"
    )
#endif
