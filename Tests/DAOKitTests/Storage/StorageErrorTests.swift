import DAOKit
import Testing

@Suite("StorageError")
struct StorageErrorTests {
    struct Cause: Error, CustomStringConvertible {
        var description: String { "the cause" }
    }

    @Test(arguments: [
        (StorageError.Kind.duplicateID, #"Message "7": an entity with this id already exists at store/Message/7 (the cause)"#),
        (.missingID, #"Message "7": no entity with this id exists at store/Message/7 (the cause)"#),
        (.corruptRecord("truncated"), #"Message "7": corrupt record (truncated) at store/Message/7"#),
        (.encodingFailed, #"Message "7": the entity could not be encoded at store/Message/7 (the cause)"#),
        (.decodingFailed, #"Message "7": the record could not be decoded at store/Message/7 (the cause)"#),
        (.io("disk full"), #"Message "7": I/O failure (disk full) at store/Message/7"#),
        (.wrongFormat("plist"), #"Message "7": wrong record format (plist) at store/Message/7"#),
        (.reentrantCall, #"Message "7": called again from inside a call to the same context, which holds its lock; refused at store/Message/7 (the cause)"#),
    ])
    func theDescriptionNamesEntityKeyReasonAndLocation(kind: StorageError.Kind, expected: String) {
        let error = StorageError(kind, entityName: "Message", key: "7", location: "store/Message/7", underlyingError: Cause())
        #expect(error.description == expected)
    }

    @Test func anErrorWithoutEntityOrKeyNamesTheStore() {
        #expect(StorageError(.io("locked")).description == "store: I/O failure (locked)")
        #expect(StorageError(.corruptRecord("bad index"), entityName: "Message", location: "ns/Message").description
            == "Message: corrupt record (bad index) at ns/Message")
    }

    @Test func keysAreQuotedSoEmptyAndControlCharacterKeysShow() {
        #expect(StorageError(.missingID, entityName: "Note", key: "").description.hasPrefix(#"Note "": "#))
        #expect(StorageError(.missingID, entityName: "Note", key: "a\0b").description.hasPrefix(#"Note "a\0b": "#))
    }
}
