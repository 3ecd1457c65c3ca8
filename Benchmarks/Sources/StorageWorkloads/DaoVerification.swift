import BenchmarkModels
import DAOKit

/// Checks that every DAO workload computes what the hand-written code computes, on its fixture.
///
/// The checks call the same fixture methods the workloads time, and run every workload once, so
/// that what is timed is what was checked. Persisting writes the same messages again, so the store
/// must hold exactly the original messages afterwards.
struct DaoVerification<Context: StorageContext> {
    let kind: DaoContextKind
    let fixture: DaoFixture<Context>
    let workloads: [StorageWorkload]

    func run() throws {
        for workload in workloads {
            do {
                try workload.run(1)
            } catch {
                throw StorageMismatch(workload: workload.name, reason: "threw \(error)")
            }
        }
        let messages = fixture.messages
        let byID = { (values: [Message]) in values.sorted { $0.id < $1.id } }
        let name = { (operation: DaoOperation, variant: DaoVariant) in DaoWorkloads.name(operation, on: kind, variant) }
        let part = { (part: ReadAllPart) in DaoWorkloads.name(part, on: kind) }

        try expectEqual(name(.readAll, .dao), byID(try fixture.dao.read()), messages)
        try expectEqual(name(.readAll, .direct), byID(try fixture.readAllDirect()), messages)

        for message in [messages.first, messages.dropFirst(messages.count / 2).first, messages.last].compactMap({ $0 })
        {
            try expectEqual(name(.readById, .dao), try fixture.dao.read(id: message.id), message)
            try expectEqual(name(.readById, .direct), try fixture.readDirect(id: message.id), message)
        }
        try expectEqual(name(.readById, .dao), try fixture.dao.read(id: -1), nil)
        try expectEqual(name(.readById, .direct), try fixture.readDirect(id: -1), nil)

        let expected = BenchmarkedQuery.expectedResult(messages)
        guard !expected.isEmpty, expected.count < messages.count else {
            throw StorageMismatch(
                workload: name(.query, .direct),
                reason: "the query selects \(expected.count) of \(messages.count) messages")
        }
        try expectEqual(name(.query, .dao), try fixture.queryThroughDao(), expected)
        try expectEqual(name(.query, .direct), try fixture.queryDirect(), expected)
        try expectEqual(
            name(.query, .directWithFoundationQuery), try fixture.queryDirectWithFoundationQuery(), expected)

        if kind == .memory {
            let selected = fixture.filterByHand()
            try expectEqual(QueryPart.filterByHand.name, selected.sorted(by: BenchmarkedQuery.precedes), expected)
            try expectEqual(QueryPart.filterWithPredicate.name, try fixture.filterWithPredicate(), selected)
            try expectEqual(QueryPart.sortByHand.name, fixture.sortByHand(), expected)
            try expectEqual(QueryPart.sortWithSortDescriptor.name, fixture.sortWithSortDescriptor(), expected)
        }

        try expectEqual(
            part(.fetchAll), byID(try fixture.context.fetchAll(MessageEntity.self).map(MessageTranslator.plain(from:))),
            messages)
        try expectEqual(part(.mapToDomain), byID(try fixture.mapFetchedToDomain()), messages)
        if let records = fixture.keyValueRecords {
            try expectEqual(part(.storeReads), records.readAll(), records.texts.map(Optional.some))
            try expectEqual(part(.jsonDecode), try records.decodeAll().map(MessageTranslator.plain(from:)), messages)
        }
        try expectEqual(
            name(.persistBatch, .dao) + " (the store afterwards)", try fixture.context.count(MessageEntity.self),
            messages.count)
    }
}
