import DAOKit
import Foundation

/// A way to make a fresh, empty context of one kind, for tests parameterized over every context.
struct ContextFactory: Sendable, CustomStringConvertible {
    /// A context and what to do when the test is done with it.
    struct Fresh {
        let context: any StorageContext
        let cleanUp: () -> Void
    }

    let description: String
    let make: @Sendable () throws -> Fresh

    static let memory = ContextFactory(description: "memory") {
        Fresh(context: InMemoryStorageContext(), cleanUp: {})
    }

    static let keyValueInMemory = ContextFactory(description: "keyValue(InMemoryKeyValueStore)") {
        Fresh(context: KeyValueStorageContext(store: InMemoryKeyValueStore()), cleanUp: {})
    }

    static let keyValueUserDefaults = ContextFactory(description: "keyValue(UserDefaults)") {
        let suite = TemporarySuite()
        return Fresh(context: KeyValueStorageContext(store: suite.defaults), cleanUp: suite.remove)
    }

    /// Every context DAOKit ships except the file context, which has its own tests.
    static let all: [ContextFactory] = [.memory, .keyValueInMemory, .keyValueUserDefaults]
}

/// A `UserDefaults` suite with a unique name, removed from memory and disk by ``remove()``.
struct TemporarySuite {
    let name = "daokit.tests.\(UUID().uuidString)"
    var defaults: UserDefaults { UserDefaults(suiteName: name)! }

    func remove() {
        let defaults = defaults
        defaults.removePersistentDomain(forName: name)
        // On Linux the property list is rewritten (here: deleted) only by synchronize().
        _ = defaults.synchronize()
    }
}
