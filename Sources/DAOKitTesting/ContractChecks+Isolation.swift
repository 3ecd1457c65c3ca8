import DAOKit
import DAOKitInternals
import Foundation

/// What callers cannot disturb: snapshots, concurrent writers, batches that fail to map.
extension ContractChecks {
    static let isolation: [ContractCheck] = [
        ContractCheck("storedEntitiesAreSnapshots") { context in
            let saved = FixtureSnapshotEntity(id: 1, title: "saved", tags: ["a"])
            try context.save([saved])
            saved.title = "changed after save"
            saved.tags.append("b")
            let fetched = try context.fetch(FixtureSnapshotEntity.self, id: 1)
            try Expect.equal(fetched?.title, "saved", "title after changing the saved instance")
            try Expect.equal(fetched?.tags, ["a"], "tags after changing the saved instance")
            fetched?.title = "changed after fetch"
            try context.fetchAll(FixtureSnapshotEntity.self).first?.tags.append("c")
            let again = try context.fetch(FixtureSnapshotEntity.self, id: 1)
            try Expect.equal(again?.title, "saved", "title after changing fetched instances")
            try Expect.equal(again?.tags, ["a"], "tags after changing fetched instances")
            try Expect.that(again !== fetched, "fetch returns a new instance each time")
        },
        ContractCheck("concurrentWritersLoseNothing") { context in
            let writers = 8
            let persistsPerWriter = 100
            let problems = Locked<[String]>([])
            let group = DispatchGroup()
            for writer in 0..<writers {
                group.enter()
                let thread = Thread {
                    defer { group.leave() }
                    // One DAO per thread: DAOs are cheap and not Sendable; the context is shared.
                    let dao = BaseDao<FixtureGauge, FixtureGaugeEntity>(context: context)
                    do {
                        for number in 0..<persistsPerWriter {
                            let gauge = FixtureGauge(id: writer * 1_000 + number, level: writer)
                            try dao.persist(gauge)
                            if try dao.read(id: gauge.id) != gauge {
                                problems.withLock { $0.append("writer \(writer) did not read back \(gauge.id)") }
                            }
                        }
                    } catch {
                        problems.withLock { $0.append("writer \(writer): \(error)") }
                    }
                }
                thread.start()
            }
            group.wait()
            let reported = problems.withLock { $0 }
            try Expect.equal(reported, [], "problems reported by the writers")
            try Expect.equal(try context.count(FixtureGaugeEntity.self), writers * persistsPerWriter, "count")
            let stored = try context.fetchAll(FixtureGaugeEntity.self)
            let expected = Set(
                (0..<writers).flatMap { writer in
                    (0..<persistsPerWriter).map { writer * 1_000 + $0 }
                })
            try Expect.equal(Set(stored.map(\.id)), expected, "ids stored")
            try Expect.that(stored.allSatisfy { Int($0.level) == $0.id / 1_000 }, "every level written by its writer")
        },
        ContractCheck("aBatchWithOneUnmappableValueWritesNothing") { context in
            let dao = BaseDao<FixtureGauge, FixtureGaugeEntity>(context: context)
            try dao.persist(FixtureGauge(id: 1, level: 1))
            // 300 does not fit the entity's Int8, so the third value cannot be mapped.
            let batch = [FixtureGauge(id: 1, level: 2), FixtureGauge(id: 2, level: 2), FixtureGauge(id: 3, level: 300)]
            try Expect.failure("persist of a batch with an unmappable value") { try dao.persist(batch) }
            try Expect.equal(try dao.read(), [FixtureGauge(id: 1, level: 1)], "values after the failed batch")
            try Expect.failure("persist of one unmappable value") { try dao.persist(FixtureGauge(id: 4, level: -129)) }
            try Expect.equal(try dao.count(), 1, "count after the failed persist")
        },
    ]
}
