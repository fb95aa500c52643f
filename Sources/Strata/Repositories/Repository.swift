/// A repository that reads, writes and deletes: the three capabilities together.
public protocol Repository<Value>: GetRepository, PutRepository, DeleteRepository {}
