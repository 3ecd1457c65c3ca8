import DAOKit
import Testing

@Suite("StorageError")
struct StorageErrorTests {
    struct Cause: Error, CustomStringConvertible {
        var description: String { "the cause" }
    }

    @Test(arguments: [
        (
            StorageError.Kind.duplicateID,
            #"Message "7": an entity with this id already exists at store/Message/7 (the cause)"#
        ),
        (.missingID, #"Message "7": no entity with this id exists at store/Message/7 (the cause)"#),
        (.corruptRecord("truncated"), #"Message "7": corrupt record (truncated) at store/Message/7"#),
        (.encodingFailed, #"Message "7": the entity could not be encoded at store/Message/7 (the cause)"#),
        (.decodingFailed, #"Message "7": the record could not be decoded at store/Message/7 (the cause)"#),
        (.io("disk full"), #"Message "7": I/O failure (disk full) at store/Message/7"#),
        (.wrongFormat("plist"), #"Message "7": wrong record format (plist) at store/Message/7"#),
        (
            .reentrantCall,
            #"Message "7": called again from inside a call to the same context, which holds its lock; refused at store/Message/7 (the cause)"#
        ),
    ])
    func theDescriptionNamesEntityKeyReasonAndLocation(kind: StorageError.Kind, expected: String) {
        let error = StorageError(
            kind, entityName: "Message", key: "7", location: "store/Message/7", underlyingError: Cause())
        #expect(error.description == expected)
    }

    @Test func anErrorWithoutEntityOrKeyNamesTheStore() {
        #expect(StorageError(.io("locked")).description == "store: I/O failure (locked)")
        #expect(
            StorageError(.corruptRecord("bad index"), entityName: "Message", location: "ns/Message").description
                == "Message: corrupt record (bad index) at ns/Message")
    }

    @Test func keysAreQuotedSoEmptyAndControlCharacterKeysShow() {
        #expect(StorageError(.missingID, entityName: "Note", key: "").description.hasPrefix(#"Note "": "#))
        #expect(StorageError(.missingID, entityName: "Note", key: "a\0b").description.hasPrefix(#"Note "a\0b": "#))
    }

    @Test func everyKindCarriesItsCodeAndOnlyTextKindsADetail() {
        let kinds: [(StorageError.Kind, StorageError.Code, String?)] = [
            (.duplicateID, .duplicateID, nil), (.missingID, .missingID, nil),
            (.corruptRecord("truncated"), .corruptRecord, "truncated"), (.encodingFailed, .encodingFailed, nil),
            (.decodingFailed, .decodingFailed, nil), (.io("disk full"), .io, "disk full"),
            (.wrongFormat("plist"), .wrongFormat, "plist"), (.reentrantCall, .reentrantCall, nil),
        ]
        for (kind, code, detail) in kinds {
            #expect(kind.code == code)
            #expect(kind.detail == detail)
            #expect(StorageError(kind).code == code)
        }
        #expect(Set(kinds.map(\.1.name)).count == kinds.count, "every code has its own name")
    }

    @Test func aKindDescribesItselfAsItIsWritten() {
        #expect("\(StorageError.Kind.reentrantCall)" == "reentrantCall")
        #expect("\(StorageError.Kind.io("disk \"full\""))" == #"io("disk \"full\"")"#)
    }

    @Test func kindsCompareByCodeAndDetail() {
        #expect(StorageError.Kind.io("a") == .io("a"))
        #expect(StorageError.Kind.io("a") != .io("b"))
        #expect(StorageError.Kind.io("a") != .corruptRecord("a"))
        #expect(StorageError(.duplicateID).kind == .duplicateID)
    }

    @Test func aSwitchOverCodesNeedsADefaultAndMatchesByCode() {
        func name(_ error: StorageError) -> String {
            switch error.code {
            case .io: return "io"
            case .duplicateID: return "duplicate"
            default: return "other"
            }
        }
        #expect(name(StorageError(.io("disk full"))) == "io")
        #expect(name(StorageError(.duplicateID)) == "duplicate")
        #expect(name(StorageError(.missingID)) == "other")
    }

    @Test func aCodeMatchesAKindWhateverItsDetail() {
        let kind = StorageError(.corruptRecord("empty file")).kind
        var matched = false
        if case StorageError.Code.corruptRecord = kind { matched = true }
        #expect(matched)
        switch kind {
        case StorageError.Code.io: Issue.record("matched the wrong code")
        case StorageError.Code.corruptRecord: break
        default: Issue.record("matched no code")
        }
    }

    @Test func aCatchClauseMatchesACode() {
        func attempt(_ error: any Error) -> String {
            do {
                throw error
            } catch StorageError.Code.io {
                return "io"
            } catch StorageError.Code.missingID {
                return "missing"
            } catch {
                return "other"
            }
        }
        #expect(attempt(StorageError(.io("disk full"))) == "io")
        #expect(attempt(StorageError(.missingID)) == "missing")
        #expect(attempt(Cause()) == "other")
        #expect(attempt(StorageError(.duplicateID)) == "other")
    }

    @Test func anErrorThatDidNotComeFromTheSystemHasNoPOSIXCode() {
        #expect(StorageError(.io("locked")).posixErrorCode == nil)
        #expect(StorageError(.corruptRecord("empty file"), underlyingError: Cause()).posixErrorCode == nil)
    }
}
