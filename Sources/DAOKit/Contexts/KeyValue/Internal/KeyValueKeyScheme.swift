import DAOKitInternals
import Foundation

/// How ``KeyValueStorageContext`` names things in a ``KeyValueStore``.
///
/// Each component (namespace, ``Storable/entityName``, ``StorageKey/storageKey``) is
/// percent-escaped: every UTF-8 byte outside `A–Z a–z 0–9 - . _ ~` becomes `%XX` (upper-case hex),
/// so an escaped component never contains `/`, control characters or non-ASCII text. Components
/// are joined with `/`:
///
/// | what                               | store key                  | example                      |
/// |------------------------------------|----------------------------|------------------------------|
/// | a record                           | `namespace/entityName/key` | `DAOKit/MessageEntity/a%2Fb` |
/// | an index (earlier versions; unread)| `namespace/entityName`     | `DAOKit/MessageEntity`        |
///
/// Escaping is reversible and injective, so two different (entity, id) pairs never share a key,
/// the records of one entity type are exactly the keys under its prefix `namespace/entityName/`
/// that ``storageKey(ofRecordKey:prefix:)`` accepts, and ids that differ only in case stay apart.
///
/// Components are put in Unicode normalization form C before escaping, because Swift compares
/// strings by canonical equivalence: `"e\u{301}" == "\u{E9}"`, so they are one id and must name
/// one record. Unescaping returns the NFC form, which is `==` to the original.
enum KeyValueKeyScheme {
    /// The store key of the record of `entityName` with this storage key.
    static func recordKey(namespace: String, entityName: String, storageKey: String) -> String {
        "\(escape(namespace))/\(escape(entityName))/\(escape(storageKey))"
    }

    /// The prefix shared by the store keys of every record of `entityName`, and by no other key
    /// this scheme produces.
    static func recordPrefix(namespace: String, entityName: String) -> String {
        "\(escape(namespace))/\(escape(entityName))/"
    }

    /// The storage key a record key under `prefix` (from ``recordPrefix(namespace:entityName:)``)
    /// stands for; `nil` for a key this scheme cannot have produced there (another component
    /// below, lower-case or needless escapes, a form other than NFC), which is someone else's.
    static func storageKey(ofRecordKey storeKey: String, prefix: String) -> String? {
        guard storeKey.hasPrefix(prefix) else { return nil }
        let escaped = storeKey.dropFirst(prefix.count)
        guard let key = unescape(escaped), escape(key) == escaped else { return nil }
        return key
    }

    /// Where earlier versions kept the list of `entityName`'s stored keys. Nothing reads it
    /// any more; ``KeyValueStorageContext/deleteAll(_:)`` removes it so no leftover outlives the type.
    static func legacyIndexKey(namespace: String, entityName: String) -> String {
        "\(escape(namespace))/\(escape(entityName))"
    }

    /// Splits a store key back into its unescaped components; `nil` when it is not a key this
    /// scheme produces.
    static func components(of storeKey: String) -> [String]? {
        var result: [String] = []
        for part in storeKey.split(separator: "/", omittingEmptySubsequences: false) {
            guard let component = unescape(part) else { return nil }
            result.append(component)
        }
        return result
    }

    /// The unescaped entity name of a record key (`namespace/entityName/key`), without
    /// unescaping the other two components; `nil` when the key does not have three components or
    /// the middle one is not escaped text. For a commit, which names the types of the many keys
    /// it wrote.
    static func entityName(ofRecordKey storeKey: String) -> String? {
        let utf8 = storeKey.utf8
        let slash = UInt8(ascii: "/")
        guard let first = utf8.firstIndex(of: slash) else { return nil }
        let afterFirst = utf8.index(after: first)
        guard let second = utf8[afterFirst...].firstIndex(of: slash),
            !utf8[utf8.index(after: second)...].contains(slash)
        else { return nil }
        return unescape(storeKey[afterFirst..<second])
    }

    /// Percent-escapes every byte of the NFC form outside the unreserved set of RFC 3986.
    static func escape(_ component: String) -> String {
        if component.utf8.allSatisfy(isUnreserved) { return component }
        let utf8 = component.precomposedStringWithCanonicalMapping.utf8
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reverses ``escape(_:)``; `nil` for text it cannot have produced.
    static func unescape<S: StringProtocol>(_ escaped: S) -> String? {
        var bytes: [UInt8] = []
        var iterator = escaped.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            } else if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                return nil
            }
        }
        // Escaped text always decodes to valid UTF-8; anything else was not produced here.
        return validatedString(bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
