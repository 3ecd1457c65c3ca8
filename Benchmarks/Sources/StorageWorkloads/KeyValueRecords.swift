import BenchmarkModels
import DAOKit
import Foundation

/// The record texts a `KeyValueStorageContext` keeps for the stored messages, and the store keys
/// they are under: what the key-value parts of `read()` (store reads, JSON decoding) work on.
struct KeyValueRecords {
    let store: InMemoryKeyValueStore
    /// The store key of every record, in the order of the ids given.
    let storeKeys: [String]
    /// The record texts, in the same order.
    let texts: [String]
    /// Configured as the context's own decoder (Foundation's defaults).
    let decoder = JSONDecoder()

    /// Finds the record of every id in `store`.
    ///
    /// The keys follow `KeyValueStorageContext`'s documented layout, `DAOKit/<entityName>/<key>`,
    /// which needs no escaping for integer ids; a layout change makes this throw, not mismeasure.
    init(store: InMemoryKeyValueStore, ids: [Int]) throws {
        self.store = store
        let contents = store.contents
        storeKeys = ids.map { "DAOKit/\(MessageEntity.entityName)/\($0)" }
        texts = try storeKeys.map { key in
            guard let text = contents[key] else {
                throw StorageMismatch(workload: "key-value records", reason: "the store has no record under \(key)")
            }
            return text
        }
    }

    /// Reads every record's text, as `fetchAll` does under its lock.
    func readAll() -> [String?] {
        storeKeys.map { store.string(forKey: $0) }
    }

    /// Decodes every record's text, as `fetchAll` does after reading them: the entity inside
    /// the record's checksummed frame, `{"daokit_crc32c":…,"entity":…}` (the checksum itself is
    /// the context's part, not JSON's).
    func decodeAll() throws -> [MessageEntity] {
        try texts.map { try decoder.decode(Framed.self, from: Data($0.utf8)).entity }
    }

    /// A record's frame, of which JSON decoding reads the entity.
    private struct Framed: Decodable {
        let entity: MessageEntity
    }
}
