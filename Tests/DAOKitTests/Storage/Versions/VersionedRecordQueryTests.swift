import DAOKit
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

/// Queries over a store that holds records of several versions of an entity answer as the full
/// scan over the resolved records, on every context that keeps encoded records — before and
/// after the old records are rewritten.
@Suite("Queries over records of several versions agree with the full scan")
struct VersionedRecordQueryTests {
    @Test(arguments: [
        ContextFactory.keyValueInMemory, .keyValueUserDefaults, .fileJSON, .filePropertyList, .sqliteFile,
    ])
    func queriesAgreeWithTheFullScan(_ factory: ContextFactory) throws {
        var made: [ContextFactory.Fresh] = []
        defer { made.forEach { $0.cleanUp() } }
        let mismatches = try VersionedRecordDifferential.mismatches {
            let fresh = try factory.make()
            made.append(fresh)
            return fresh.context
        }
        #expect(mismatches.isEmpty, "\(factory): \(mismatches.joined(separator: "\n"))")
    }
}
