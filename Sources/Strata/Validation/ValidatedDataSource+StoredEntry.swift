extension ValidatedDataSource: StoredEntryDataSource
where Source: StoredEntryDataSource, V.Value == Source.Value {
    /// Reads the entry and validates its value, so a validated cache still tells when it stored a value.
    ///
    /// - Throws: ``StrataError/Code/notValid`` with the value as payload when validation fails.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Source.Value> {
        let entry = try await source.getEntry(query)
        guard validator.isValid(entry.value, context: ValidationContext(storedAt: entry.storedAt)) else {
            throw StrataError.notValid(staleValue: entry.value)
        }
        return entry
    }

    /// Reads the entries and validates each; one invalid value makes the whole answer invalid.
    ///
    /// - Throws: ``StrataError/Code/notValid`` with all the values as payload when one fails.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Source.Value>] {
        let entries = try await source.getAllEntries(query)
        for entry in entries {
            guard validator.isValid(entry.value, context: ValidationContext(storedAt: entry.storedAt)) else {
                throw StrataError.notValid(staleValue: entries.map(\.value))
            }
        }
        return entries
    }
}
