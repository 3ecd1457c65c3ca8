import DAOKit
import DAOKitTestSupport
import DAOKitTesting
import Testing

/// The cases of Foundation's own predicate and sort-descriptor tests, through `BaseDao`, answer
/// on every context as the predicate's evaluation and `sorted(using:)` do on the same values —
/// and throw where that evaluation throws (DAOKitTesting's
/// ``QueryDifferential/foundationCorpusMismatches(in:)``).
@Suite("Foundation's predicate and sort cases answer as Swift on every context")
struct FoundationQueryCorpusTests {
    @Test(arguments: ContextFactory.everyShipped + [.filePropertyList])
    func foundationsPredicateAndSortCasesAnswerAsSwift(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let mismatches = try QueryDifferential.foundationCorpusMismatches(in: fresh.context)
        #expect(mismatches.isEmpty, "\(factory): \(mismatches.map(\.description).joined(separator: "\n"))")
    }

    /// The check fails a context that answers differently: one that drops a record.
    @Test func aContextThatLosesARecordIsReported() throws {
        let context = DroppingContext()
        let mismatches = try QueryDifferential.foundationCorpusMismatches(in: context)
        #expect(!mismatches.isEmpty)
        #expect(mismatches.contains { $0.call == "read(sortedBy:)" })
    }
}

/// A context whose full read loses the last record, answering every query from that read.
private final class DroppingContext: StorageContext {
    private let inner = InMemoryStorageContext()
    func save<E: Storable>(_ entities: [E]) throws { try inner.save(entities) }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { try inner.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { Array(try inner.fetchAll(type).dropLast()) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { try inner.delete(type, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { try inner.deleteAll(type) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try inner.count(type) }
}
