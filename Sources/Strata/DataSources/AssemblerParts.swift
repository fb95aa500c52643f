/// The three parts an assembler forwards to, said once for ``DataSourceAssembler`` and ``RepositoryAssembler``:
/// one answers reads, one writes, one deletes.
///
/// Each part is kept as the closures of its calls, made where the assembler is created and the part's type is known
/// (the assemblers' initialisers are inlinable): a call runs the part's code specialised for its type. Kept as an
/// existential instead, a call would run the part's conformance, whose generic code looks up the metadata of every
/// generic type it touches: a memory-cache hit through an erased `CacheRepository` took 3.2 times as long as the same
/// hit through the repository held by its type, in the benchmark suite (1.2 times, kept as closures).
@usableFromInline
struct AssemblerParts<Getter: Sendable, Putter: Sendable, Deleter: Sendable>: Sendable {
    /// Answers `get`, `getAll` and the other reads.
    @usableFromInline let getter: Getter

    /// Answers `put`, `putAll` and the other writes.
    @usableFromInline let putter: Putter

    /// Answers `delete`.
    @usableFromInline let deleter: Deleter

    @inlinable
    init(getter: Getter, putter: Putter, deleter: Deleter) {
        self.getter = getter
        self.putter = putter
        self.deleter = deleter
    }
}
