/// A repository that converts the values of another repository with mappers in both directions.
///
/// Build it with ``GetRepository/mapped(to:from:)``.
public struct MappedRepository<Base: Sendable, BaseValue: Sendable, Value: Sendable>: Sendable {
    /// The wrapped repository.
    public let base: Base

    private let conversion: ValueConversion<BaseValue, Value>

    /// Wraps a repository with two mappers.
    ///
    /// - Parameters:
    ///   - base: The repository whose values are converted.
    ///   - toValue: Converts what the repository returns.
    ///   - toBaseValue: Converts what is written to the repository.
    public init(
        _ base: Base,
        toValue: some Mapper<BaseValue, Value>,
        toBaseValue: some Mapper<Value, BaseValue>
    ) {
        self.base = base
        self.conversion = ValueConversion(toValue: toValue, toStored: toBaseValue)
    }
}

extension MappedRepository: GetRepository where Base: GetRepository, Base.Value == BaseValue {
    /// Reads from the repository and converts the value.
    public func get(_ query: any Query, operation: any RepositoryOperation) async throws -> Value {
        try await conversion.convertingPayload { try conversion.value(await base.get(query, operation: operation)) }
    }

    /// Reads from the repository and converts the values.
    public func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Value] {
        try await conversion.convertingPayload {
            try conversion.values(await base.getAll(query, operation: operation))
        }
    }

    /// Reads from the repository with its outcome, and converts the value.
    public func getReportingOutcome(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> (value: Value, outcome: CallOutcome) {
        let (value, outcome) = try await conversion.convertingPayload {
            try await base.getReportingOutcome(query, operation: operation)
        }
        return (try conversion.value(value), outcome)
    }
}

extension MappedRepository: PutRepository where Base: PutRepository, Base.Value == BaseValue {
    /// Converts the value, writes it and converts what the repository returns (and the values its error carries,
    /// such as main's value in ``StrataError/Code/cacheSyncFailed``).
    ///
    /// - Throws: The repository's error; ``StrataError/Code/dataSerialization`` when the value does not convert
    ///   (nothing was written), or when what the repository returns does not: it took the write, so that error says
    ///   ``StrataError/mayHaveTakenEffect``, as for `putAll`.
    public func put(_ value: Value, in query: any Query, operation: any RepositoryOperation) async throws -> Value {
        try await conversion.convertingPayload {
            try conversion.written(await base.put(conversion.stored(value), in: query, operation: operation))
        }
    }

    /// Converts the values, writes them and converts what the repository returns.
    public func putAll(
        _ values: [Value],
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> [Value] {
        try await conversion.convertingPayload {
            try conversion.written(await base.putAll(conversion.stored(values), in: query, operation: operation))
        }
    }
}

extension MappedRepository: DeleteRepository where Base: DeleteRepository {
    /// Deletes through to the repository.
    public func delete(_ query: any Query, operation: any RepositoryOperation) async throws {
        try await base.delete(query, operation: operation)
    }
}

extension MappedRepository: Repository where Base: Repository, Base.Value == BaseValue {}

// MARK: - Wrapping

extension GetRepository {
    /// Wraps this repository so that it serves values converted by `toValue` and stores values
    /// converted by `fromValue`.
    ///
    /// - Parameters:
    ///   - toValue: Converts what this repository serves into what callers see.
    ///   - fromValue: Converts what callers write into what this repository stores.
    public func mapped<NewValue>(
        to toValue: some Mapper<Value, NewValue>,
        from fromValue: some Mapper<NewValue, Value>
    ) -> MappedRepository<Self, Value, NewValue> {
        MappedRepository(self, toValue: toValue, toBaseValue: fromValue)
    }
}

extension MappedRepository: RepositoryCapabilities {}
