import Foundation

/// `async` overloads of every ``BaseDao`` method, with the same names and labels: in an `async`
/// context, `try await dao.read(id: id)` runs the synchronous method — the one a subclass may
/// override — on DAOKit's own threads, and suspends the calling task meanwhile, so the cooperative
/// pool never blocks on the store's locks, disk or other processes.
///
/// **Cancellation.** A task cancelled before its call starts throws `CancellationError` and the
/// call never runs. A call that has started finishes — a write is never abandoned half way —
/// except while it waits for another process's lock on a `FileStorageContext`: that wait
/// checks the task every few milliseconds and throws `CancellationError`, having changed nothing.
/// (Waits for this process's own threads are short and not interrupted.)
///
/// **Overrides hold.** Each overload runs the synchronous method of the same name, so a subclass's
/// override of it (validation, logging) runs whichever way it is called.
///
/// **Contexts that wait natively.** For a context that conforms to ``AsyncStorageContext`` (a
/// database server), a `BaseDao` that is not subclassed maps values in the calling task and
/// `await`s the context's `async` methods instead: no thread waits for the network. A subclass
/// gets that path only when it says its synchronous methods are not overridden
/// (``BaseDao/awaitsAsyncContextDirectly``); otherwise its overrides are honoured as above.
///
/// **Errors.** What the synchronous method throws, or `CancellationError` as above.
///
/// Values passed in are `sending`: the call moves them to another thread, so the caller may not
/// keep using a value (a class instance) it passes while the call runs.
///
/// They exist where `Domain` and `Entity` are `SendableMetatype` — every type whose `Codable`
/// conformance is not isolated to an actor (`@MainActor`), which is every type in a module
/// without default main-actor isolation: such a conformance may only be used on its actor, and
/// these methods use it on DAOKit's threads.
extension BaseDao where Domain: SendableMetatype, Entity: SendableMetatype {
    // MARK: Writing

    /// ``create(_:)`` on DAOKit's threads.
    public func create(_ domain: sending Domain) async throws {
        if let native { return try await native.save([try toEntity(domain)], mode: .insert) }
        try await BlockingWork.run { try self.create(domain) }
    }

    /// ``update(_:)`` on DAOKit's threads.
    public func update(_ domain: sending Domain) async throws {
        if let native { return try await native.save([try toEntity(domain)], mode: .update) }
        try await BlockingWork.run { try self.update(domain) }
    }

    /// ``update(id:attempts:_:)-ydji`` on DAOKit's threads: `change` runs there, once per attempt.
    public func update(
        id: Domain.ID, attempts: Int = 10, _ change: @escaping @Sendable (inout Domain) throws -> Void
    ) async throws -> Domain? {
        try await BlockingWork.run { try self.update(id: id, attempts: attempts, change) }
    }

    /// ``migrate(progress:)-4r1a4`` on DAOKit's threads, where `progress` is called.
    @discardableResult
    public func migrate(progress: (@Sendable (MigrationProgress) -> Void)? = nil) async throws -> Int {
        try await BlockingWork.run { try self.migrate(progress: progress) }
    }

    /// ``update(_:ifUnchangedFrom:)`` on DAOKit's threads.
    public func update(_ domain: sending Domain, ifUnchangedFrom expected: sending Domain) async throws {
        try await BlockingWork.run { try self.update(domain, ifUnchangedFrom: expected) }
    }

    /// ``persist(_:)-(Domain)`` on DAOKit's threads.
    public func persist(_ domain: sending Domain) async throws {
        if let native { return try await native.save([try toEntity(domain)], mode: .upsert) }
        try await BlockingWork.run { try self.persist(domain) }
    }

    /// ``persist(_:)-([Domain])`` on DAOKit's threads: all or nothing.
    public func persist(_ domains: sending [Domain]) async throws {
        if let native {
            if domains.isEmpty { return }
            return try await native.save(try mapEach(domains, to: Entity.self, with: strictMapper), mode: .upsert)
        }
        try await BlockingWork.run { try self.persist(domains) }
    }

    // MARK: Reading

    /// ``read(id:)`` on DAOKit's threads.
    public func read(id: Domain.ID) async throws -> Domain? {
        if let native {
            guard let entity = try await native.fetch(Entity.self, id: id) else { return nil }
            return try mapper.map(entity, to: Domain.self)
        }
        return try await BlockingWork.run { try self.read(id: id) }
    }

    /// ``read()`` on DAOKit's threads.
    public func read() async throws -> [Domain] {
        if let native { return try toDomains(try await native.fetchAll(Entity.self)) }
        return try await BlockingWork.run { try self.read() }
    }

    /// ``read(where:sortedBy:limit:offset:)`` on DAOKit's threads.
    public func read(
        where predicate: Predicate<Domain>? = nil,
        sortedBy: [SortDescriptor<Domain>] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) async throws -> [Domain] {
        if let native {
            try StorageQuery.validatePage(limit: limit, offset: offset, entityName: Entity.entityName)
            let plan = queryPlan(predicate: predicate, sortedBy: sortedBy, limit: limit, offset: offset)
            return try plan.finish(try await candidates(for: plan, from: native))
        }
        let request = SendingTransfer((predicate, sortedBy))
        return try await BlockingWork.run {
            try self.read(where: request.value.0, sortedBy: request.value.1, limit: limit, offset: offset)
        }
    }

    /// ``count()`` on DAOKit's threads.
    public func count() async throws -> Int {
        if let native { return try await native.count(Entity.self) }
        return try await BlockingWork.run { try self.count() }
    }

    /// ``count(where:)`` on DAOKit's threads.
    public func count(where predicate: Predicate<Domain>) async throws -> Int {
        if let native {
            let plan = queryPlan(predicate: predicate, sortedBy: [], limit: nil, offset: 0)
            if plan.residualPredicate == nil, let filter = plan.storageQuery.filter {
                return try await native.count(Entity.self, matching: filter)
            }
            return try plan.finish(try await candidates(for: plan, from: native)).count
        }
        let predicate = SendingTransfer(predicate)
        return try await BlockingWork.run { try self.count(where: predicate.value) }
    }

    // MARK: Erasing

    /// ``erase(id:)`` on DAOKit's threads.
    public func erase(id: Domain.ID) async throws {
        if let native { return try await native.delete(Entity.self, ids: [id]) }
        try await BlockingWork.run { try self.erase(id: id) }
    }

    /// ``erase(ids:)`` on DAOKit's threads.
    public func erase(ids: [Domain.ID]) async throws {
        if let native { return try await native.delete(Entity.self, ids: ids) }
        try await BlockingWork.run { try self.erase(ids: ids) }
    }

    /// ``erase(where:)`` on DAOKit's threads.
    public func erase(where predicate: Predicate<Domain>) async throws {
        if let native {
            let plan = queryPlan(predicate: predicate, sortedBy: [], limit: nil, offset: 0)
            if plan.residualPredicate == nil, let filter = plan.storageQuery.filter {
                return try await native.delete(Entity.self, matching: filter)
            }
            let doomed = try plan.finish(try await candidates(for: plan, from: native)).map(\.id)
            if doomed.isEmpty { return }
            return try await native.delete(Entity.self, ids: doomed)
        }
        let predicate = SendingTransfer(predicate)
        try await BlockingWork.run { try self.erase(where: predicate.value) }
    }

    /// ``erase()`` on DAOKit's threads.
    public func erase() async throws {
        if let native { return try await native.deleteAll(Entity.self) }
        try await BlockingWork.run { try self.erase() }
    }

    // MARK: Salvage

    /// ``readReadable()`` on DAOKit's threads.
    public func readReadable() async throws -> ReadableRecords<Domain, Domain.ID> {
        if let native { return mapReadable(try await native.fetchReadable(Entity.self)) }
        return try await BlockingWork.run { try self.readReadable() }
    }

    /// ``storedIDs()`` on DAOKit's threads.
    public func storedIDs() async throws -> [Domain.ID] {
        if let native { return try await native.storedKeys(Entity.self).compactMap(Domain.ID.init(storageKey:)) }
        return try await BlockingWork.run { try self.storedIDs() }
    }

    /// ``erase(storageKeys:)`` on DAOKit's threads.
    public func erase(storageKeys: [String]) async throws {
        if let native { return try await native.delete(Entity.self, storageKeys: storageKeys) }
        try await BlockingWork.run { try self.erase(storageKeys: storageKeys) }
    }

    // MARK: Native

    /// The context, when it waits natively and may be awaited directly (see "Contexts that wait
    /// natively" above).
    private var native: (any AsyncStorageContext)? {
        awaitsAsyncContextDirectly ? context as? any AsyncStorageContext : nil
    }

    /// The mapped values `context` selects for `plan`, awaited.
    private func candidates(for plan: DaoQueryPlan<Domain>, from context: any AsyncStorageContext) async throws
        -> [Domain]
    {
        if plan.readsEverything { return try toDomains(try await context.fetchAll(Entity.self)) }
        return try toDomains(try await context.fetch(Entity.self, matching: plan.storageQuery))
    }
}
