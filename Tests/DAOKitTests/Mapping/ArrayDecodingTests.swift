import Foundation
import Testing

@testable import DAOKit

/// Arrays are decoded by the mapper itself, into storage reserved for their length
/// (`Mapping/Internal/Unsafe/ArrayFastPath.swift`), with exactly what `Array.init(from:)` would produce:
/// the same elements, the same errors at the same paths, the same reads for strict mode.
@Suite("Array decoding")
struct ArrayDecodingTests {
    @Test func anArrayIsDecodedIntoStorageReservedForItsLength() throws {
        // Grown one append at a time, 65 elements end in a buffer of 120 or more; reserved, ~66.
        let decoded = try EntityMapper().map(Array(0..<65), to: [Int].self)
        #expect(decoded == Array(0..<65))
        #expect(decoded.capacity < 90)
    }

    @Test func aNestedArrayOfKeyedValuesDecodesEveryElementInOrder() throws {
        let dialog = Dialog(
            id: 1, isPinned: true, title: "t", messages: (1...20).map { Message.sample($0) }, tags: ["a", "b"])
        let entity = try EntityMapper().map(dialog, to: DialogEntity.self)
        #expect(entity.messages.map(\.plain) == dialog.messages)
        #expect(entity.tags == ["a", "b"])
        #expect(entity.messages.capacity < 2 * dialog.messages.count)
    }

    @Test func emptyAndNestedArraysDecodeAsTheyWereWritten() throws {
        let nested: [[Int]] = [[], [1], [2, 3], []]
        #expect(try EntityMapper().map(nested, to: [[Int]].self) == nested)
        #expect(try EntityMapper().map([String](), to: [String].self).isEmpty)
    }

    @Test func anElementOfTheWrongKindFailsAtItsIndexAsThroughJSON() throws {
        let error = try #require(throws: MappingError.self) {
            try EntityMapper().map(TextValues(values: ["1", "2", "x"].map(TextOrNumber.text)), to: Numbers.self)
        }
        #expect(
            error.description
                == "Cannot map TextValues to Numbers: type mismatch (expected Int, found String) at values[0]")
    }

    @Test func anElementMissingAKeyFailsAtThatElementsPath() throws {
        struct Partial: Encodable { let id: Int }
        struct Holder: Encodable { let messages: [Partial] }
        struct Target: Decodable { let messages: [MessageEntity] }
        let error = try #require(throws: MappingError.self) {
            try EntityMapper().map(Holder(messages: [Partial(id: 1)]), to: Target.self)
        }
        #expect(error.codingPath.map(\.stringValue) == ["messages", "Index 0", "date"])
    }

    @Test func strictModeStillSeesAnUnreadKeyInsideAnArrayElement() throws {
        struct Wide: Encodable {
            let id: Int
            let extra: Int
        }
        struct Narrow: Decodable { let id: Int }
        #expect(throws: MappingError.self) {
            try EntityMapper(strict: true).map([Wide(id: 1, extra: 2)], to: [Narrow].self)
        }
        #expect(try EntityMapper().map([Wide(id: 1, extra: 2)], to: [Narrow].self).map(\.id) == [1])
    }

    @Test func anArrayAndAKeyedValueInEachOthersPlaceAreTypeMismatches() throws {
        #expect(throws: MappingError.self) {
            try EntityMapper().map(["a": [1, 2]], to: [String: String].self)
        }
        #expect(throws: MappingError.self) {
            try EntityMapper().map(TextValues(values: []), to: [Int].self)
        }
    }

    @Test func bytesOfDataStillDecodeAsAnArrayOfUInt8() throws {
        #expect(try EntityMapper().map(Data([1, 2, 3]), to: [UInt8].self) == [1, 2, 3])
    }

    @Test func everyPayloadTheRecyclerSkipsIsPlainBits() {
        // `MappedValue.holdsNoReference` lets recycling skip destroying these payloads: sound only
        // if destroying them does nothing, which is what `_isPOD` says.
        #expect(_isPOD(Bool.self) && _isPOD(Int64.self) && _isPOD(UInt64.self) && _isPOD(Float.self))
        #expect(_isPOD(Double.self) && _isPOD(Date.self) && _isPOD(UUID.self) && _isPOD(Decimal.self))
        #expect(MappedValue.decimal(1).holdsNoReference && MappedValue.date(Date()).holdsNoReference)
        #expect(!MappedValue.string("s").holdsNoReference && !MappedValue.data(Data()).holdsNoReference)
    }
}

/// A value that is text or a number, to write arrays of mixed kinds.
private enum TextOrNumber: Encodable {
    case text(String)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        }
    }
}

private struct TextValues: Encodable {
    let values: [TextOrNumber]
}

private struct Numbers: Decodable {
    let values: [Int]
}
