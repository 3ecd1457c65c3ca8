import DAOKit
import DAOKitSQLite
import DAOKitTestSupport
import Foundation
import Synchronization
import Testing

/// Two contexts on one database file — two instances of a service — each increment one counter a
/// thousand times through `BaseDao.update(id:)`: the counter ends at 2,000.
@Suite("SQLite update in place: two instances on one file lose no increment")
struct SQLiteUpdateInPlaceTests {
    struct Counter: Codable, Identifiable, Equatable, Sendable {
        var id: String
        var value: Int
    }

    struct CounterEntity: Storable, Equatable, Sendable {
        var id: String
        var value: Int
    }

    @Test func twoInstancesIncrementingAThousandTimesEachReachTwoThousand() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let instances = [try database.open(), try database.open()]
        try BaseDao<Counter, CounterEntity>(context: instances[0]).create(Counter(id: "c", value: 0))
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: instances.count) { index in
            let counters = BaseDao<Counter, CounterEntity>(context: instances[index])
            do {
                for _ in 0..<1_000 { _ = try counters.update(id: "c") { $0.value += 1 } }
            } catch {
                failures.withLock { $0.append("instance \(index): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        for instance in instances {
            #expect(try BaseDao<Counter, CounterEntity>(context: instance).read(id: "c")?.value == 2_000)
        }
        #expect(try BaseDao<Counter, CounterEntity>(context: database.open()).read(id: "c")?.value == 2_000)
    }
}
