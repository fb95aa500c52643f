/// The three parts an assembler forwards to, said once for ``DataSourceAssembler`` and ``RepositoryAssembler``:
/// one answers reads, one writes, one deletes.
struct AssemblerParts<Getter: Sendable, Putter: Sendable, Deleter: Sendable>: Sendable {
    /// Answers `get`, `getAll` and the other reads.
    let getter: Getter

    /// Answers `put`, `putAll` and the other writes.
    let putter: Putter

    /// Answers `delete`.
    let deleter: Deleter
}
