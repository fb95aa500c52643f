/// The earlier marker of a source that announces its changes; every source now has
/// ``DataSourceCapabilities/changes(forKey:)`` as a requirement, so the marker adds nothing.
@available(
    *,
    deprecated,
    message: "Every data source can announce its changes: implement changes(forKey:) of DataSourceCapabilities"
)
public protocol ObservableDataSource: DataSourceCapabilities {}

/// The earlier marker of a source that names its origin; every source now has ``DataSourceCapabilities/origin``
/// as a requirement, so the marker adds nothing.
@available(*, deprecated, message: "Every data source has an origin: implement origin of DataSourceCapabilities")
public protocol OriginProviding: DataSourceCapabilities {}

/// The earlier marker of a source that reads entries with their stored dates; every get source now has
/// ``GetDataSource/getEntry(_:)`` and ``GetDataSource/getAllEntries(_:)`` as requirements.
@available(
    *,
    deprecated,
    renamed: "GetDataSource",
    message: "Every get data source has getEntry(_:) and getAllEntries(_:)"
)
public protocol StoredEntryDataSource<Value>: GetDataSource {
    /// The type of the values the source holds.
    associatedtype Value
}
