import Foundation

/// `async` overloads of every ``BaseDao`` method, with the same names and labels: in an `async`
/// context, `try await dao.read(id: id)` runs the synchronous method — the one a subclass may
/// override — on DAOKit's own threads, and suspends the calling task meanwhile, so the cooperative
/// pool never blocks on the store's locks, disk or other processes.
///
/// **Cancellation.** A task cancelled before its call starts throws `CancellationError` and the
/// call never runs. A call that has started finishes — a write is never abandoned half way —
/// except while it waits for another process's lock on a ``FileStorageContext``: that wait
/// checks the task every few milliseconds and throws `CancellationError`, having changed nothing.
/// (Waits for this process's own threads are short and not interrupted.)
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
        try await BlockingWork.run { try self.create(domain) }
    }

    /// ``update(_:)`` on DAOKit's threads.
    public func update(_ domain: sending Domain) async throws {
        try await BlockingWork.run { try self.update(domain) }
    }

    /// ``persist(_:)-(Domain)`` on DAOKit's threads.
    public func persist(_ domain: sending Domain) async throws {
        try await BlockingWork.run { try self.persist(domain) }
    }

    /// ``persist(_:)-([Domain])`` on DAOKit's threads: all or nothing.
    public func persist(_ domains: sending [Domain]) async throws {
        try await BlockingWork.run { try self.persist(domains) }
    }

    // MARK: Reading

    /// ``read(id:)`` on DAOKit's threads.
    public func read(id: Domain.ID) async throws -> Domain? {
        try await BlockingWork.run { try self.read(id: id) }
    }

    /// ``read()`` on DAOKit's threads.
    public func read() async throws -> [Domain] {
        try await BlockingWork.run { try self.read() }
    }

    /// ``read(where:sortedBy:limit:offset:)`` on DAOKit's threads.
    public func read(
        where predicate: Predicate<Domain>? = nil,
        sortedBy: [SortDescriptor<Domain>] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) async throws -> [Domain] {
        let request = SendingTransfer((predicate, sortedBy))
        return try await BlockingWork.run {
            try self.read(where: request.value.0, sortedBy: request.value.1, limit: limit, offset: offset)
        }
    }

    /// ``count()`` on DAOKit's threads.
    public func count() async throws -> Int {
        try await BlockingWork.run { try self.count() }
    }

    /// ``count(where:)`` on DAOKit's threads.
    public func count(where predicate: Predicate<Domain>) async throws -> Int {
        let predicate = SendingTransfer(predicate)
        return try await BlockingWork.run { try self.count(where: predicate.value) }
    }

    // MARK: Erasing

    /// ``erase(id:)`` on DAOKit's threads.
    public func erase(id: Domain.ID) async throws {
        try await BlockingWork.run { try self.erase(id: id) }
    }

    /// ``erase(ids:)`` on DAOKit's threads.
    public func erase(ids: [Domain.ID]) async throws {
        try await BlockingWork.run { try self.erase(ids: ids) }
    }

    /// ``erase(where:)`` on DAOKit's threads.
    public func erase(where predicate: Predicate<Domain>) async throws {
        let predicate = SendingTransfer(predicate)
        try await BlockingWork.run { try self.erase(where: predicate.value) }
    }

    /// ``erase()`` on DAOKit's threads.
    public func erase() async throws {
        try await BlockingWork.run { try self.erase() }
    }

    // MARK: Salvage

    /// ``readReadable()`` on DAOKit's threads.
    public func readReadable() async throws -> ReadableRecords<Domain, Domain.ID> {
        try await BlockingWork.run { try self.readReadable() }
    }

    /// ``storedIDs()`` on DAOKit's threads.
    public func storedIDs() async throws -> [Domain.ID] {
        try await BlockingWork.run { try self.storedIDs() }
    }

    /// ``erase(storageKeys:)`` on DAOKit's threads.
    public func erase(storageKeys: [String]) async throws {
        try await BlockingWork.run { try self.erase(storageKeys: storageKeys) }
    }
}
