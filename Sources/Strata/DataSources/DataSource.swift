/// A source that reads, writes and deletes: the three capabilities together.
///
/// Declare `DataSource` on a type that implements all three so that it can be stored as
/// `any DataSource<User>` and passed to ``CacheRepository``.
public protocol DataSource<Value>: GetDataSource, PutDataSource, DeleteDataSource {}
