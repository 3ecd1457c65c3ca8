// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/Servers.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import Foundation
import Hummingbird
import HummingbirdWebSocket
import ServiceLifecycle
import Testing

// Sources/DAOKit/DAOKit.docc/Servers.md:24
private struct Ticket: Codable, Identifiable, Sendable {
    var id: String
    var projectID: String
    var title: String
    var isOpen: Bool
    var dueDate: Date?
}

// Sources/DAOKit/DAOKit.docc/Servers.md:32
private struct TicketEntity: Storable, Sendable {
    static var indexes: [StorageIndex] { [StorageIndex("projectID", "dueDate")] }
    var id: String
    var projectID: String
    var title: String
    var isOpen: Bool
    var dueDate: Date?
}

// Sources/DAOKit/DAOKit.docc/Servers.md:41
private struct EmptyTitle: Error {}

// Sources/DAOKit/DAOKit.docc/Servers.md:43
private final class TicketsDao: BaseDao<Ticket, TicketEntity>, @unchecked Sendable {
    /// Overrides none of BaseDao's methods: on a database server, awaits it directly.
    override var awaitsAsyncContextDirectly: Bool { true }

    /// A project's open tickets, soonest due first.
    func open(in projectID: String, limit: Int = 50) async throws -> [Ticket] {
        try await read(where: #Predicate { $0.projectID == projectID && $0.isOpen },
                       sortedBy: [SortDescriptor(\.dueDate)], limit: limit)
    }

    /// Saves a ticket a client sent, after checking it.
    func save(_ ticket: Ticket) async throws {
        guard !ticket.title.isEmpty else { throw EmptyTitle() }
        try await persist(ticket)
    }

    /// Closes every open ticket of a project, all or nothing.
    func closeAll(in projectID: String) async throws {
        let closed = try await open(in: projectID, limit: .max).map { ticket in
            var ticket = ticket
            ticket.isOpen = false
            return ticket
        }
        try await persist(closed)
    }
}

// Sources/DAOKit/DAOKit.docc/Servers.md:105
private func addLiveRoutes(to router: Router<BasicRequestContext>, tickets: BaseDao<Ticket, TicketEntity>) {
    router.get("projects/:project/open-count") { request, context -> Response in
        let project = try context.parameters.require("project")
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                // The observation runs in a task of its own, so that a client leaving can cancel it.
                let (counts, relay) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
                let observation = Task {
                    do {
                        for try await count in tickets.observeCount(where: #Predicate { $0.projectID == project && $0.isOpen }) {
                            relay.yield(count)
                        }
                    } catch {
                        // A failure that cannot pass (a record that does not decode): the stream ends.
                    }
                    relay.finish()
                }
                // Whatever ends the response ends the observation, and releases what it holds.
                defer { observation.cancel() }
                try await request.body.consumeWithInboundCloseHandler { _ in
                    for await count in counts.cancelOnGracefulShutdown() {
                        try await writer.write(ByteBuffer(string: "data: \(count)\n\n"))
                    }
                } onInboundClosed: {
                    observation.cancel()  // the client left
                }
                try await writer.finish(nil)
            }
        )
    }
}

// Sources/DAOKit/DAOKit.docc/Servers.md:154
private func addLiveSocket(to router: Router<BasicWebSocketRequestContext>, tickets: BaseDao<Ticket, TicketEntity>) {
    router.ws("tickets/open") { inbound, outbound, _ in
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await open in tickets.observe(where: #Predicate { $0.isOpen }, sortedBy: [SortDescriptor(\.title)])
                    .cancelOnGracefulShutdown() {
                    try await outbound.write(.text(open.map(\.title).joined(separator: "\n")))
                }
            }
            group.addTask {
                for try await _ in inbound {}  // ends when the client closes the socket
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/Servers.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/Servers.md: its samples compile and run")
func serversSamples() async throws {
    // Sources/DAOKit/DAOKit.docc/Servers.md:178
    let tickets = TicketsDao(context: InMemoryStorageContext())
    try await tickets.save(Ticket(id: "T-1", projectID: "apollo", title: "Launch checklist", isOpen: true, dueDate: nil))
    let openTickets = try await tickets.open(in: "apollo")

    let router = Router()
    addLiveRoutes(to: router, tickets: tickets)
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
    // try await app.runService()  // serves until SIGTERM or SIGINT, then shuts down gracefully
    // Every top-level constant and variable of the samples, read once.
    _ = tickets
    _ = openTickets
    _ = router
    _ = app
}
