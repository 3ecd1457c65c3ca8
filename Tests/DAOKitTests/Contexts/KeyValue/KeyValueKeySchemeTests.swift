import DAOKitTesting
import Testing

@testable import DAOKit

/// What a key-value transaction's commit reads back from the store keys it wrote: the entity name
/// of each, to announce the types at once.
@Suite("Key-value key scheme: entity names read back from record keys")
struct KeyValueKeySchemeTests {
    @Test(
        "the entity name of every record key is the one it was made with",
        arguments: ["Message", "Task list/é", "e\u{301}", "a%2Fb", "~-._", "", "日本"])
    func theEntityNameOfEveryRecordKeyIsTheOneItWasMadeWith(_ entityName: String) {
        for id in StorageContextContract.awkwardIDs + ["", "plain"] {
            for namespace in ["DAOKit", "app/one", ""] {
                let key = KeyValueKeyScheme.recordKey(namespace: namespace, entityName: entityName, storageKey: id)
                #expect(
                    KeyValueKeyScheme.entityName(ofRecordKey: key) == entityName.precomposedStringWithCanonicalMapping)
                #expect(KeyValueKeyScheme.entityName(ofRecordKey: key) == KeyValueKeyScheme.components(of: key)?[1])
            }
        }
    }

    @Test(
        "a key that is not a record key has no entity name",
        arguments: ["DAOKit/Message", "DAOKit", "", "DAOKit/Mess age/1", "DAOKit/Message/1/2", "DAOKit/%ZZ/1", "//x/"])
    func aKeyThatIsNotARecordKeyHasNoEntityName(_ key: String) {
        #expect(KeyValueKeyScheme.entityName(ofRecordKey: key) == nil)
    }

    @Test("a commit names each type of the keys it wrote once, as reading every key would")
    func aCommitNamesEachTypeOfTheKeysItWroteOnce() {
        let entityNames = ["Message", "MessageDraft", "Message draft", "Task list/é", "e\u{301}", "a%2Fb", "日本"]
        var keys: [String] = []
        for namespace in ["DAOKit", "app/one"] {
            for (position, entityName) in entityNames.enumerated() {
                for id in StorageContextContract.awkwardIDs.prefix(position + 1) + ["", "plain"] {
                    keys.append(
                        KeyValueKeyScheme.recordKey(namespace: namespace, entityName: entityName, storageKey: id))
                }
            }
        }
        // Keys that are not record keys, among them: they name nothing.
        keys += ["DAOKit/Message", "DAOKit/Message/1/2", "DAOKit/%ZZ/1", "DAOKit", ""]
        let sorted = keys.sorted()
        let expected = Set(sorted.compactMap(KeyValueKeyScheme.entityName(ofRecordKey:))).sorted()
        #expect(KeyValueStorageContext.entityNames(ofSortedKeys: sorted) == expected)
        #expect(expected.count == entityNames.count)
        #expect(KeyValueStorageContext.entityNames(ofSortedKeys: []) == [])
        #expect(KeyValueStorageContext.entityNames(ofSortedKeys: ["DAOKit/Message/1/2"]) == [])
    }
}
