import Foundation

/// Live results: streams that deliver a query's result now and again after every committed change
/// that alters it.
///
/// ```swift
/// for try await unread in messages.observe(where: #Predicate { !$0.isRead },
///                                          sortedBy: [SortDescriptor(\.date, order: .reverse)]) {
///     show(unread)
/// }
/// ```
///
/// **What is delivered.** The first element is the current result. After that, one element after
/// each committed change of `Entity`'s type that alters the result, as the context announces it
/// (``StorageContext/changeNotifier``): a write that leaves the result equal delivers nothing
/// (results are compared by their JSON encoding, see `ResultFingerprint.swift`), and writes to
/// other entity types are not even looked at. Changes that arrive while a result is being worked
/// out, or while the consumer is busy, are coalesced: intermediate states may be skipped, the last
/// state is always delivered. A file store also delivers other processes' commits, within 250 ms.
/// A context without a notifier delivers the first result only.
///
/// **Cost.** Queries re-run on DAOKit's threads through ``read(where:sortedBy:limit:offset:)`` —
/// pushed down to the context's indexes where the predicate translates — never on the writer's
/// thread or the cooperative pool. When the context names the records a write changed, an
/// observation skips the re-run if none of them is in its result and none now matches its
/// predicate (without an offset: with one, a record leaving the pages before shifts the result);
/// ``observe(id:)`` ignores writes to other ids.
///
/// **Ending.** Cancelling the consuming task (or leaving the `for` loop, or dropping the stream)
/// ends the observation and releases what it holds; no element follows. An error thrown by a
/// re-run ends the stream with it, unless the context's change monitor says it passes by itself
/// (``ExternalChangeMonitor/observationOutlives(_:)``): a PostgreSQL context's observations wait
/// out a server restart and deliver the result again once the server answers.
///
/// These methods exist where `Domain` and `Entity` are `SendableMetatype` (see `BaseDao+Async.swift`).
extension BaseDao where Domain: SendableMetatype, Entity: SendableMetatype {
    /// The values matching `predicate`, sorted and paged as ``read(where:sortedBy:limit:offset:)-8z1iu``
    /// returns them, now and after every committed change that alters them.
    ///
    /// A negative `limit` or `offset` ends the stream at once with ``StorageError`` of code
    /// ``StorageError/Code/invalidQuery`` (no element is delivered; nothing traps).
    public func observe(
        where predicate: Predicate<Domain>? = nil, sortedBy: [SortDescriptor<Domain>] = [],
        limit: Int? = nil, offset: Int = 0
    ) -> AsyncThrowingStream<[Domain], any Error> {
        let request = SendingTransfer((predicate, sortedBy))
        return LiveObservation<[Domain]>.start(notifier: context.changeNotifier, entityName: Entity.entityName) {
            changes, last in
            let (predicate, sortedBy) = request.value
            try StorageQuery.validatePage(limit: limit, offset: offset, entityName: Entity.entityName)
            if let changes, let last, offset == 0, let predicate,
                try self.changesLeaveResult(changes, resultKeys: last.keys, predicate: predicate)
            {
                return .unchanged
            }
            let result = try self.read(where: predicate, sortedBy: sortedBy, limit: limit, offset: offset)
            return .result(result, keys: Set(result.map(\.id.storageKey)))
        }
    }

    /// The value stored under `id` (`nil` while there is none), now and after every committed
    /// change that alters it. Writes to other ids of the type are not looked at.
    public func observe(id: Domain.ID) -> AsyncThrowingStream<Domain?, any Error> {
        let entityName = Entity.entityName
        let key = id.storageKey
        return LiveObservation<Domain?>.start(
            notifier: context.changeNotifier, entityName: entityName,
            isRelevant: { $0.concerns(entityName: entityName, storageKey: key) }
        ) { _, _ in
            .result(try self.read(id: id), keys: [key])
        }
    }

    /// How many values match `predicate` (all of them when `nil`), now and after every committed
    /// change that alters the count.
    public func observeCount(where predicate: Predicate<Domain>? = nil) -> AsyncThrowingStream<Int, any Error> {
        let predicate = SendingTransfer(predicate)
        return LiveObservation<Int>.start(notifier: context.changeNotifier, entityName: Entity.entityName) { _, _ in
            let count = try predicate.value.map { try self.count(where: $0) } ?? self.count()
            return .result(count, keys: [])
        }
    }

    /// Whether `changes` certainly leave a result unchanged: each names its records, none of them
    /// is in the result (`resultKeys`), and none of them now matches `predicate` (a removed record
    /// matches nothing). Valid for a result with no offset: a record outside it that matched before
    /// and matches no longer was past its limit, and leaving does not move the records before it.
    /// More than 64 changed records are not worth reading one by one: re-run instead.
    private func changesLeaveResult(_ changes: [StorageChange], resultKeys: Set<String>, predicate: Predicate<Domain>)
        throws -> Bool
    {
        var keys = Set<String>()
        for change in changes {
            guard change.entityName != nil, let changed = change.storageKeys else { return false }
            keys.formUnion(changed)
            if keys.count > 64 { return false }
        }
        for key in keys {
            if resultKeys.contains(key) { return false }
            guard let id = Domain.ID(storageKey: key) else { return false }
            guard let domain = try read(id: id) else { continue }
            if try predicate.evaluate(domain) { return false }
        }
        return true
    }
}
