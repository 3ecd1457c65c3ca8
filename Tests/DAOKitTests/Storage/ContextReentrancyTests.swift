import DAOKitInternals
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

/// User code that calls a context again from inside one of its calls (issue 14, finding 7, for
/// every context). The rule: user code a context can run outside its lock — `id` getters,
/// `StorageKey.storageKey`, `entityName`, the `deinit` of a replaced snapshot — it runs before
/// taking it or after dropping it, so calling the context from there works; code that must run
/// under the lock — a `KeyValueStore`'s methods, and what they notify — gets
/// ``StorageError/Kind/reentrantCall`` for its nested call. Never a deadlock,
/// never a half-applied batch. Each case runs on a thread of its own with a time limit, so a
/// deadlock fails the test instead of hanging the run.
@Suite("Context re-entrancy")
struct ContextReentrancyTests {
    static let factories: [ContextFactory] = ContextFactory.core + [.fileJSON]

    @Test(arguments: factories, SaveMode.allCases)
    func anIDGetterThatCallsTheContextDuringASaveWorks(_ factory: ContextFactory, _ mode: SaveMode) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        if mode == .update { try context.save((0..<3).map { CallbackNote(key: "n\($0)", text: "old") }) }
        let before = try context.count(CallbackNote.self)
        let outcome = runOnAThreadOfItsOwn(within: .seconds(20)) { () -> [String] in
            let nested = Locked<[String]>([])
            let callback = Callback {
                do {
                    let count = try context.count(CallbackNote.self)
                    let all = try context.fetchAll(CallbackNote.self).count
                    nested.withLock { $0.append("\(count)/\(all)") }
                } catch {
                    nested.withLock { $0.append("\(error)") }
                }
            }
            try context.save((0..<3).map { CallbackNote(key: "n\($0)", text: "new", callback: callback) }, mode: mode)
            return Array(Set(nested.withLock { $0 }))
        }
        #expect(outcome == .finished(["\(before)/\(before)"]), "\(factory)")
        #expect(try context.fetchAll(CallbackNote.self).map(\.text) == ["new", "new", "new"])
    }

    @Test(arguments: factories)
    func aStorageKeyThatCallsTheContextWorksInEveryCall(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save([KeyedNote(id: CallbackKey("a"), text: "a"), KeyedNote(id: CallbackKey("b"), text: "b")])
        let outcome = runOnAThreadOfItsOwn(within: .seconds(20)) { () -> [String] in
            let callback = Callback { _ = try? context.fetchAll(KeyedNote.self) }
            let a = CallbackKey("a", callback: callback)
            let c = CallbackKey("c", callback: callback)
            var seen: [String] = []
            seen.append(try context.fetch(KeyedNote.self, id: a)?.text ?? "nil")
            try context.save([KeyedNote(id: c, text: "c")], mode: .insert)
            try context.save([KeyedNote(id: c, text: "c2")], mode: .update)
            try context.delete(KeyedNote.self, ids: [a])
            seen.append(try context.fetchAll(KeyedNote.self).map(\.text).sorted().joined(separator: ","))
            return seen
        }
        #expect(outcome == .finished(["a", "b,c2"]), "\(factory)")
    }

    @Test func anEntityNameThatCallsTheContextWorksInEveryContext() throws {
        for factory in Self.factories {
            let fresh = try factory.make()
            defer { fresh.cleanUp() }
            let context = fresh.context
            let outcome = runOnAThreadOfItsOwn(within: .seconds(20)) { () -> Int in
                try NamedNote.$hook.withValue(Callback { _ = try? context.count(FileNote.self) }) {
                    try context.save([NamedNote(id: "1")], mode: .insert)
                    try context.save([NamedNote(id: "1")], mode: .update)
                    _ = try context.fetch(NamedNote.self, id: "1")
                    _ = try context.fetchAll(NamedNote.self)
                    try context.delete(NamedNote.self, ids: ["2"])
                    let count = try context.count(NamedNote.self)
                    try context.deleteAll(NamedNote.self)
                    return count
                }
            }
            #expect(outcome == .finished(1), "\(factory)")
        }
    }

    /// The in-memory context keeps snapshots of class entities; the ones a call replaces or
    /// removes are released after its lock is dropped, so a `deinit` may use the context.
    @Test func aClassEntityWhoseDeinitCallsTheInMemoryContextIsReleasedOutsideTheLock() throws {
        let context = InMemoryStorageContext()
        let outcome = runOnAThreadOfItsOwn(within: .seconds(20)) { () -> Int in
            let deinits = Locked(0)
            try DeinitNote.$onDeinit.withValue(
                Callback {
                    _ = try? context.count(DeinitNote.self)
                    deinits.withLock { $0 += 1 }
                }
            ) {
                try context.save([DeinitNote(id: "a"), DeinitNote(id: "b"), DeinitNote(id: "c")])
                try context.save([DeinitNote(id: "a")])  // replaces a snapshot
                try context.delete(DeinitNote.self, ids: ["b"])
                try context.deleteAll(DeinitNote.self)
            }
            return deinits.withLock { $0 } > 0 ? try context.count(DeinitNote.self) : -1
        }
        #expect(outcome == .finished(0))
    }

    /// A store whose writes call the context again: the nested call is refused with
    /// `.reentrantCall`, and the outer save goes on and stores the whole batch.
    @Test(arguments: [1, 3])
    func aKeyValueStoreThatCallsItsContextDuringAWriteIsRefusedNotDeadlocked(_ size: Int) throws {
        let store = CallingBackStore()
        let context = KeyValueStorageContext(store: store)
        let outcome = runOnAThreadOfItsOwn(within: .seconds(20)) { () -> [String] in
            let nested = Locked<[String]>([])
            store.callback = {
                do {
                    _ = try context.count(FileNote.self)
                    nested.withLock { $0.append("granted") }
                } catch let error as StorageError {
                    nested.withLock { $0.append("\(error.kind)") }
                } catch {
                    nested.withLock { $0.append("\(error)") }
                }
            }
            try context.save((0..<size).map { FileNote(id: "n\($0)", text: "t") })
            store.callback = nil
            return Array(Set(nested.withLock { $0 }))
        }
        #expect(outcome == .finished(["reentrantCall"]))
        #expect(try context.fetchAll(FileNote.self).count == size)
    }

    /// The same store passing the refusal on: the outer save fails with it and writes nothing.
    @Test func aRefusalTheStorePassesOnFailsTheOuterCallAndChangesNothing() throws {
        let store = CallingBackStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FileNote(id: "a", text: "old")])
        let outcome = runOnAThreadOfItsOwn(within: .seconds(20)) { () -> String in
            store.throwingCallback = { _ = try context.fetchAll(FileNote.self) }
            defer { store.throwingCallback = nil }
            do {
                try context.save([FileNote(id: "a", text: "new"), FileNote(id: "b", text: "new")])
                return "saved"
            } catch let error as StorageError {
                return "\(error.kind): \(error)"
            }
        }
        #expect(
            outcome
                == .finished(
                    #"reentrantCall: FileNote "a": called again from inside a call to the same context, which holds its lock; refused at DAOKit/FileNote/a"#
                ))
        #expect(try context.fetchAll(FileNote.self) == [FileNote(id: "a", text: "old")])
    }

    /// An observer of `UserDefaults.didChangeNotification` that reads through the context: it runs
    /// inside the store's `set` where Foundation posts the notification synchronously (Apple
    /// platforms), so its read is refused; where it is not posted it never runs. Either way the
    /// save finishes and stores everything.
    @Test func aUserDefaultsObserverThatReadsTheContextNeverDeadlocksIt() throws {
        let suite = TemporarySuite()
        defer { suite.remove() }
        let context = KeyValueStorageContext(store: suite.defaults)
        let nested = Locked<[String]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: UserDefaults.didChangeNotification, object: nil, queue: nil
        ) { _ in
            do {
                _ = try context.count(FileNote.self)
                nested.withLock { $0.append("granted") }
            } catch let error as StorageError {
                nested.withLock { $0.append("\(error.kind)") }
            } catch {
                nested.withLock { $0.append("\(error)") }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let outcome = runOnAThreadOfItsOwn(within: .seconds(20)) { () -> Int in
            try context.save((0..<3).map { FileNote(id: "n\($0)", text: "t") })
            return try context.count(FileNote.self)
        }
        #expect(outcome == .finished(3))
        // Other tests' suites notify this observer too, from outside any call of this context.
        #expect(
            nested.withLock { $0 }.allSatisfy { $0 == "granted" || $0 == "reentrantCall" }, "\(nested.withLock { $0 })")
    }
}

// MARK: - Support

/// A storage key whose `storageKey` runs a callback first. Equal and hashed by its value only.
struct CallbackKey: StorageKey, Codable {
    let value: String
    let callback: Callback?

    init(_ value: String, callback: Callback? = nil) {
        self.value = value
        self.callback = callback
    }

    init?(storageKey: String) { self.init(storageKey) }
    init(from decoder: any Decoder) throws { self.init(try String(from: decoder)) }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }

    var storageKey: String {
        callback?.run()
        return value
    }

    static func == (lhs: CallbackKey, rhs: CallbackKey) -> Bool { lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

struct KeyedNote: Storable {
    var id: CallbackKey
    var text: String
}

/// An entity type whose `entityName` runs the task's hook first.
struct NamedNote: Storable {
    @TaskLocal static var hook: Callback?
    static var entityName: String {
        hook?.run()
        return "NamedNote"
    }

    var id: String
}

/// A class entity whose `deinit` runs the task's hook.
final class DeinitNote: Storable, @unchecked Sendable {
    @TaskLocal static var onDeinit: Callback?
    let id: String
    /// Captured when the object is made (the mapper makes the stored copies on the caller's task).
    private let hook: Callback?

    init(id: String) {
        self.id = id
        hook = Self.onDeinit
    }

    enum CodingKeys: String, CodingKey { case id }

    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .id)
        hook = Self.onDeinit
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
    }

    deinit { hook?.run() }
}

/// An in-memory key-value store that runs a callback inside every write, as an observer of the
/// store's notifications would.
final class CallingBackStore: KeyValueStore, @unchecked Sendable {
    private let base = InMemoryKeyValueStore()
    private let hooks = Locked<(callback: (() -> Void)?, throwing: (() throws -> Void)?)>((nil, nil))

    var callback: (() -> Void)? {
        get { hooks.withLock { $0.callback } }
        set { hooks.withLock { $0.callback = newValue } }
    }

    var throwingCallback: (() throws -> Void)? {
        get { hooks.withLock { $0.throwing } }
        set { hooks.withLock { $0.throwing = newValue } }
    }

    func string(forKey key: String) throws -> String? { base.string(forKey: key) }

    func setString(_ value: String, forKey key: String) throws {
        callback?()
        try throwingCallback?()
        base.setString(value, forKey: key)
    }

    func removeObject(forKey key: String) throws {
        callback?()
        try throwingCallback?()
        base.removeObject(forKey: key)
    }

    func keys(withPrefix prefix: String) throws -> [String] { base.keys(withPrefix: prefix) }

    func flush() throws {}
}
