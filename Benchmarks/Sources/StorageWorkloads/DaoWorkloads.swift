import BenchmarkModels
import DAOKit

/// The DAO benchmarks: every ``DaoOperation`` through `BaseDao` and by hand, plus the parts of
/// `read()`, on one context filled with messages.
public enum DaoWorkloads {
    /// The workloads on a fresh context of `kind` holding `messageCount` messages. The context is
    /// filled on first use (see ``StorageWorkloadSet/prepare``).
    public static func make(
        on kind: DaoContextKind,
        messageCount: Int = SampleData.storedMessageCount
    ) -> StorageWorkloadSet {
        switch kind {
        case .memory:
            return make(kind, messageCount: messageCount) { (InMemoryStorageContext(), nil) }
        case .keyValue:
            return make(kind, messageCount: messageCount) {
                let store = InMemoryKeyValueStore()
                return (KeyValueStorageContext(store: store), store)
            }
        }
    }

    /// The name of a workload, as ``StorageWorkload/name`` gives it.
    public static func name(_ operation: DaoOperation, on context: DaoContextKind, _ variant: DaoVariant) -> String {
        "\(operation.name(on: context)) \(variant.rawValue)"
    }

    /// The name of the workload timing one part of `read()`.
    public static func name(_ part: ReadAllPart, on context: DaoContextKind) -> String {
        "\(DaoOperation.readAll.name(on: context)) \(part.rawValue)"
    }

    /// Generic, so that each closure below is specialized for the concrete context and calls it
    /// directly, as app code would.
    private static func make<Context: StorageContext>(
        _ kind: DaoContextKind,
        messageCount: Int,
        makeContext: @escaping () -> (Context, InMemoryKeyValueStore?)
    ) -> StorageWorkloadSet {
        let fixture = Deferred<DaoFixture<Context>> {
            let (context, store) = makeContext()
            return try DaoFixture(
                messages: SampleData.messages(count: messageCount), context: context, keyValueStore: store)
        }

        func workload(
            _ operation: DaoOperation, _ variant: DaoVariant,
            _ body: @escaping (DaoFixture<Context>, Int) throws -> Void
        ) -> StorageWorkload {
            StorageWorkload(operation: operation.name(on: kind), variant: variant.rawValue) { iterations in
                try body(fixture.get(), iterations)
            }
        }
        func part(_ part: ReadAllPart, _ body: @escaping (DaoFixture<Context>, Int) throws -> Void) -> StorageWorkload {
            StorageWorkload(operation: DaoOperation.readAll.name(on: kind), variant: part.rawValue) { iterations in
                try body(fixture.get(), iterations)
            }
        }
        // Each single-record workload walks through all records on its own.
        func singles(_ body: @escaping (DaoFixture<Context>, Message) throws -> Void) -> (DaoFixture<Context>, Int)
            throws -> Void
        {
            var next = RoundRobin(count: messageCount)
            return { fixture, iterations in
                for _ in 0..<iterations { try body(fixture, fixture.messages[next.next()]) }
            }
        }
        func repeated<Output>(_ body: @escaping (DaoFixture<Context>) throws -> Output) -> (DaoFixture<Context>, Int)
            throws -> Void
        {
            { fixture, iterations in
                for _ in 0..<iterations { consumeOpaquely(try body(fixture)) }
            }
        }

        var workloads = [
            workload(.persistOne, .dao, singles { try $0.dao.persist($1) }),
            workload(.persistOne, .direct, singles { try $0.persistDirect($1) }),
            workload(.persistBatch, .dao, repeated { try $0.dao.persist($0.messages) }),
            workload(.persistBatch, .direct, repeated { try $0.persistAllDirect() }),
            workload(.readById, .dao, singles { consumeOpaquely(try $0.dao.read(id: $1.id)) }),
            workload(.readById, .direct, singles { consumeOpaquely(try $0.readDirect(id: $1.id)) }),
            workload(.readAll, .dao, repeated { try $0.dao.read() }),
            workload(.readAll, .direct, repeated { try $0.readAllDirect() }),
            workload(.query, .dao, repeated { try $0.queryThroughDao() }),
            workload(.query, .direct, repeated { try $0.queryDirect() }),
            workload(.query, .directWithFoundationQuery, repeated { try $0.queryDirectWithFoundationQuery() }),
            part(.fetchAll, repeated { try $0.context.fetchAll(MessageEntity.self) }),
            part(.mapToDomain, repeated { try $0.mapFetchedToDomain() }),
        ]
        if kind == .memory {
            // Filtering and sorting do not touch the context: timed once, with the memory set.
            func queryPart(_ part: QueryPart, _ body: @escaping (DaoFixture<Context>) throws -> [Message])
                -> StorageWorkload
            {
                let run = repeated(body)
                return StorageWorkload(operation: QueryPart.operation, variant: part.rawValue) { iterations in
                    try run(fixture.get(), iterations)
                }
            }
            workloads += [
                queryPart(.filterWithPredicate) { try $0.filterWithPredicate() },
                queryPart(.filterByHand) { $0.filterByHand() },
                queryPart(.sortWithSortDescriptor) { $0.sortWithSortDescriptor() },
                queryPart(.sortByHand) { $0.sortByHand() },
            ]
        }
        if kind == .keyValue {
            workloads += [
                part(.storeReads, repeated { $0.keyValueRecords?.readAll() }),
                part(.jsonDecode, repeated { try $0.keyValueRecords?.decodeAll() }),
            ]
        }
        let timed = workloads
        let verification = Deferred {
            try DaoVerification(kind: kind, fixture: try fixture.get(), workloads: timed).run()
        }
        return StorageWorkloadSet(
            workloads: timed,
            prepare: { _ = try fixture.get() },
            verify: { try verification.get() },
            tearDown: {
                fixture.reset()
                verification.reset()
            }
        )
    }
}
