import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// A value is stored whole or refused by name, however deep it nests: the contexts that store JSON
/// refuse a value deeper than `JSONEncoder` writes with a ``NestingLimitError`` naming the entity,
/// the path and the limit (never an internal type), and store nothing; the in-memory context and
/// the file store's property lists store it. Runs on a thread with a large stack, so that the
/// depth is the store's limit and not the thread's.
@Suite("Deep values are stored whole or refused by name")
struct DeepValueStorageTests {
    static let contexts = ContextFactory.everyShipped + [.filePropertyList]

    @Test(arguments: contexts)
    func aThousandLevelsAreStoredWholeOrRefusedNamingThePathAndTheLimit(_ factory: ContextFactory) async throws {
        let outcome = try await onThread(stackSize: StackSizes.huge) { () -> Outcome in
            let fresh = try factory.make()
            defer { fresh.cleanUp() }
            let dao = TreeDao(context: fresh.context)
            try dao.persist(Tree(id: 1, name: "shallow", root: Node(depth: 3)))
            return try Outcome(persisting: Tree(id: 2, name: "deep", root: Node(depth: 1_000)), dao: dao)
        }
        switch outcome {
        case .stored(let depth):
            #expect(depth == 1_000, "\(factory)")
            #expect(Self.storing.contains(factory.description), "\(factory) stored what JSON cannot hold")
        case .refused(let error, let untouched):
            #expect(!Self.storing.contains(factory.description), "\(factory) refused: \(error)")
            #expect(untouched, "\(factory): a refused write changes nothing")
            #expect(error.code == .encodingFailed, "\(factory)")
            #expect(error.entityName == "TreeEntity", "\(factory)")
            #expect(error.key == "2", "\(factory)")
            let nesting = try #require(error.underlyingError as? NestingLimitError, "\(factory): \(error)")
            #expect(nesting.limit == 511, "\(factory)")
            #expect(nesting.path.hasPrefix("root.child.child"), "\(factory): \(nesting.path)")
            #expect(nesting.path.hasSuffix("child.child.child"), "\(factory): \(nesting.path)")
            #expect(nesting.depth > 500 && nesting.depth <= 512, "\(factory): \(nesting.depth)")
            #expect(!"\(error)".contains("URLKeeping"), "\(factory): \(error)")
            #expect("\(error)".contains("511 levels"), "\(factory): \(error)")
        }
    }

    /// Around each context's limit, every depth is either read back exactly or refused: nothing
    /// is written that does not read back.
    @Test(arguments: contexts)
    func everyDepthAroundTheLimitReadsBackExactlyOrIsRefused(_ factory: ContextFactory) async throws {
        let outcomes = try await onThread(stackSize: StackSizes.huge) { () -> [Int: Outcome] in
            let fresh = try factory.make()
            defer { fresh.cleanUp() }
            let dao = TreeDao(context: fresh.context)
            var outcomes: [Int: Outcome] = [:]
            for depth in 505...513 {
                outcomes[depth] = try Outcome(
                    persisting: Tree(id: depth, name: "d", root: Node(depth: depth)), dao: dao)
            }
            return outcomes
        }
        for (depth, outcome) in outcomes.sorted(by: { $0.key < $1.key }) {
            switch outcome {
            case .stored(let readBack): #expect(readBack == depth, "\(factory) \(depth)")
            case .refused(let error, let untouched):
                #expect(untouched, "\(factory) \(depth)")
                #expect(error.underlyingError is NestingLimitError, "\(factory) \(depth): \(error)")
            }
        }
        // The refusals start at the depth the "Errors and unreadable records" article gives.
        let refused = outcomes.filter { if case .refused = $0.value { true } else { false } }.keys.sorted()
        let first = Self.firstRefusedDepth[factory.description]
        #expect(refused == first.map { Array($0...513) } ?? [], "\(factory)")
    }

    /// The shallowest `Node` chain each JSON context refuses: 511 levels of objects, counting the
    /// key-value record's entity object (so 510 nodes fit), the file record's envelope and entity
    /// (509), and for SQLite none (a field's value is its own JSON text, so 511 nodes fit).
    static let firstRefusedDepth: [String: Int] = [
        ContextFactory.keyValueInMemory.description: 511, ContextFactory.keyValueUserDefaults.description: 511,
        ContextFactory.fileJSON.description: 510, ContextFactory.sqliteFile.description: 512,
    ]

    @Test func aNestingLimitErrorSaysWhereAndHowDeep() {
        let error = NestingLimitError(path: "root.child … child", depth: 510, limit: 511)
        #expect(
            error.description
                == "the value nests containers deeper than the 511 levels JSON holds here, at root.child … child (510 keys deep)"
        )
        #expect(error == NestingLimitError(path: "root.child … child", depth: 510, limit: 511))
    }

    /// The contexts that store a value of any depth.
    static let storing: Set<String> = [ContextFactory.memory.description, ContextFactory.filePropertyList.description]

    /// What persisting one tree did.
    enum Outcome: Sendable {
        /// Stored; the depth `read(id:)` returns (a full read agrees).
        case stored(Int)
        /// Refused with `error`; whether the store holds what it held before.
        case refused(StorageError, untouched: Bool)

        init(persisting tree: Tree, dao: TreeDao) throws {
            let before = try dao.read().map(\.id).sorted()
            do {
                try dao.persist(tree)
            } catch let error as StorageError {
                self = .refused(error, untouched: try dao.read().map(\.id).sorted() == before)
                return
            }
            let read = try #require(try dao.read(id: tree.id))
            #expect(try dao.read().first { $0.id == tree.id }?.root.depth == read.root.depth)
            self = .stored(read.root.depth)
        }
    }

    typealias TreeDao = BaseDao<Tree, TreeEntity>

    struct Tree: Codable, Identifiable, Sendable {
        var id: Int
        var name: String
        var root: Node
    }

    struct TreeEntity: Storable, Sendable {
        var id: Int
        var name: String
        var root: Node
    }

    /// A chain of nested objects, `depth` levels of `{"child": …}` (the last one `{}`).
    final class Node: Codable, Sendable {
        let child: Node?

        init(child: Node?) { self.child = child }

        convenience init(depth: Int) {
            var node: Node? = nil
            for _ in 0..<(depth - 1) { node = Node(child: node) }
            self.init(child: node)
        }

        /// How many levels this chain has, counted without recursion.
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
}
