import BenchmarkModels
import DAOKit

/// The file-storage benchmarks: every ``FileOperation`` through `BaseDao` over a
/// `FileStorageContext`, and the same I/O by hand, on one store in a temporary directory.
public enum FileWorkloads {
    /// How many messages one batch persists.
    public static let batchSize = 1_000

    /// The workloads on a new store of `messageCount` messages, created on first use (see
    /// ``StorageWorkloadSet/prepare``) and removed when the set is released or torn down.
    public static func make(messageCount: Int = SampleData.storedMessageCount) -> StorageWorkloadSet {
        let fixture = Deferred {
            try FileFixture(messages: SampleData.messages(count: messageCount), batchSize: batchSize)
        }

        func workload(
            _ operation: FileOperation, _ variant: FileVariant,
            _ body: @escaping (FileFixture, Int) throws -> Void
        ) -> StorageWorkload {
            StorageWorkload(operation: operation.name, variant: variant.rawValue) { iterations in
                try body(fixture.get(), iterations)
            }
        }
        // Each workload walks through all records (or batches) on its own.
        func singles(_ body: @escaping (FileFixture, Message) throws -> Void) -> (FileFixture, Int) throws -> Void {
            var next = RoundRobin(count: messageCount)
            return { fixture, iterations in
                for _ in 0..<iterations { try body(fixture, fixture.messages[next.next()]) }
            }
        }
        func batches(_ body: @escaping (FileFixture, [Message]) throws -> Void) -> (FileFixture, Int) throws -> Void {
            var next = RoundRobin(count: (messageCount + batchSize - 1) / batchSize)
            return { fixture, iterations in
                for _ in 0..<iterations { try body(fixture, fixture.batches[next.next()]) }
            }
        }
        func repeated<Output>(_ body: @escaping (FileFixture) throws -> Output) -> (FileFixture, Int) throws -> Void {
            { fixture, iterations in
                for _ in 0..<iterations { consumeOpaquely(try body(fixture)) }
            }
        }

        let workloads = [
            workload(.persistOne, .dao, singles { try $0.dao.persist($1) }),
            workload(.persistOne, .raw, singles { try $0.raw.write($1) }),
            workload(.batch, .dao, batches { try $0.dao.persist($1) }),
            workload(.batch, .raw, batches { try $0.raw.write($1) }),
            workload(.readById, .dao, singles { consumeOpaquely(try $0.dao.read(id: $1.id)) }),
            workload(.readById, .raw, singles { consumeOpaquely(try $0.raw.read(id: $1.id)) }),
            workload(
                .readById, .contextOnly,
                singles { consumeOpaquely(try $0.context.fetch(MessageEntity.self, id: $1.id)) }),
            workload(.readAll, .dao, repeated { try $0.dao.read() }),
            workload(.readAll, .raw, repeated { try $0.raw.readAll() }),
            workload(.readAll, .contextOnly, repeated { try $0.context.fetchAll(MessageEntity.self) }),
        ]
        let verification = Deferred {
            try FileVerification(fixture: try fixture.get(), workloads: workloads).run()
        }
        return StorageWorkloadSet(
            workloads: workloads,
            prepare: { _ = try fixture.get() },
            verify: { try verification.get() },
            tearDown: {
                fixture.ifMade?.storeDirectory.remove()
                fixture.reset()
                verification.reset()
            }
        )
    }

    /// The name of a workload, as ``StorageWorkload/name`` gives it.
    public static func name(_ operation: FileOperation, _ variant: FileVariant) -> String {
        "\(operation.name) \(variant.rawValue)"
    }
}
