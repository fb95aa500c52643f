import Foundation
import LoopbackServer
import Strata
import StrataNetwork

/// An item the items API serves; its id is its key.
struct CatalogueItem: Codable, Hashable, Identifiable, Sendable {
    var id: Int
}

/// A loopback API that answers `GET /items?ids=1,2,3` with the items among those ids that it has (ids below
/// `count`), in the order asked, and `GET /items/7` with one item.
struct ItemsAPI {
    let server: LoopbackServer

    /// Starts the API with items 0 to `count` - 1.
    static func start(count: Int) async throws -> ItemsAPI {
        @Sendable func reply(_ items: [CatalogueItem]) throws -> ServerReply {
            ServerReply(
                status: 200,
                headers: ["content-type": "application/json"],
                body: try JSONEncoder().encode(items)
            )
        }
        let server = try await LoopbackServer.start([
            (
                "GET /items",
                { request in
                    let ids = (request.query["ids"] ?? "").split(separator: ",").compactMap { Int($0) }
                    return try reply(ids.filter { $0 < count }.map(CatalogueItem.init(id:)))
                }
            ),
            (
                "GET /items/*",
                { request in
                    guard let id = Int(request.path.dropFirst("/items/".count)), id < count else {
                        return ServerReply(status: 404)
                    }
                    return try reply([CatalogueItem(id: id)])
                }
            ),
        ])
        return ItemsAPI(server: server)
    }

    /// The ids of each list request the server received, in order.
    var listRequests: [[Int]] {
        server.requests.filter { $0.path == "/items" }.map { request in
            (request.query["ids"] ?? "").split(separator: ",").compactMap { Int($0) }
        }
    }

    /// A source of items over HTTP: an ids query is one request for all its ids.
    var source: NetworkGetDataSource<CatalogueItem> {
        NetworkGetDataSource<CatalogueItem>(client: makeClient()) { [baseURL = server.baseURL] query in
            guard let query = query as? IdsQuery<Int> else {
                throw StrataError.queryNotSupported(query, by: NetworkGetDataSource<CatalogueItem>.self)
            }
            let ids = query.ids.map(String.init).joined(separator: ",")
            return HTTPRequest(
                .get,
                baseURL: baseURL,
                path: "items",
                queryItems: [URLQueryItem(name: "ids", value: ids)]
            )
        }
    }
}
