import DAOKit
import DAOKitPostgres
import Foundation
import Testing

/// A value is stored whole or refused by name on PostgreSQL, as on the other contexts that store
/// JSON: deeper than `JSONEncoder` writes is a ``NestingLimitError`` naming the path and the
/// limit, and nothing is stored; every depth below reads back exactly. Runs on a thread with a
/// large stack, so that the depth is the store's limit and not the thread's.
@Suite("Postgres deep values are stored whole or refused by name")
struct PostgresDeepValueTests {
    @Test func everyDepthAroundTheLimitReadsBackExactlyOrIsRefusedNamingThePath() async throws {
        let outcomes = try await onLargeStack { () -> [Int: Outcome] in
            let context = try TestServer.context()
            defer { context.close() }
            let dao = BaseDao<Tree, TreeEntity>(context: context)
            var outcomes: [Int: Outcome] = [:]
            for depth in [3, 505, 506, 507, 508, 509, 510, 511, 512, 513, 1_000] {
                let before = try dao.read().map(\.id).sorted()
                do {
                    try dao.persist(Tree(id: depth, root: Node(depth: depth)))
                    let read = try #require(try dao.read(id: depth))
                    outcomes[depth] = .stored(read.root.depth)
                } catch let error as StorageError {
                    outcomes[depth] = .refused(error, untouched: try dao.read().map(\.id).sorted() == before)
                }
            }
            return outcomes
        }
        for (depth, outcome) in outcomes.sorted(by: { $0.key < $1.key }) {
            switch outcome {
            case .stored(let readBack): #expect(readBack == depth, "\(depth)")
            case .refused(let error, let untouched):
                #expect(untouched, "\(depth)")
                #expect(error.code == .encodingFailed && error.entityName == "TreeEntity", "\(depth): \(error)")
                let nesting = try #require(error.underlyingError as? NestingLimitError, "\(depth): \(error)")
                #expect(nesting.limit == 511 && nesting.path.hasPrefix("root.child.child"), "\(depth): \(nesting)")
                #expect(!"\(error)".contains("URLKeeping"), "\(depth): \(error)")
            }
        }
        // As on SQLite, a field's value is its own JSON text of at most 511 levels.
        let refused = outcomes.filter { if case .refused = $0.value { true } else { false } }.keys.sorted()
        #expect(refused == [512, 513, 1_000])
    }

    enum Outcome: Sendable {
        case stored(Int)
        case refused(StorageError, untouched: Bool)
    }

    struct Tree: Codable, Identifiable, Sendable {
        var id: Int
        var root: Node
    }

    struct TreeEntity: Storable, Sendable {
        var id: Int
        var root: Node
    }

    /// `depth` levels of `{"child": …}`.
    final class Node: Codable, Sendable {
        let child: Node?

        init(child: Node?) { self.child = child }

        convenience init(depth: Int) {
            var node: Node? = nil
            for _ in 0..<(depth - 1) { node = Node(child: node) }
            self.init(child: node)
        }

        var depth: Int {
            var count = 1
            var node = child
            while let next = node {
                count += 1
                node = next.child
            }
            return count
        }
    }

    /// Runs `body` on a thread with a 1 GiB stack.
    func onLargeStack<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.stackSize = 1 << 30
            thread.start()
        }
    }
}
