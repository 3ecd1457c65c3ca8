import DAOKitTesting
import Foundation
import Testing

@Suite("The recorded shape of a type is what its records hold")
struct ShapeRecordingTests {
    enum Status: String, Codable, CaseIterable { case open, done }
    enum Priority: Int, Codable, CaseIterable {
        case low = 1
        case high = 5
    }
    struct Owner: Codable {
        var name: String
        var email: String?
    }
    struct Line: Codable {
        var sku: String
        var quantity: Int
    }

    struct Everything: Codable {
        var text: String
        var count: Int
        var small: UInt8
        var ratio: Double
        var flag: Bool
        var due: Date?
        var blob: Data
        var link: URL
        var amount: Decimal
        var token: UUID
        var tags: [String]
        var labels: Set<String>
        var maybeTags: [String?]
        var scores: [String: Int]
        var byYear: [Int: [Line]]
        var status: Status
        var priority: Priority?
        var owner: Owner
        var lines: [Line]
        var grid: [[Double]]
    }

    @Test func everyKindOptionalityNestingAndEnumCaseIsRecorded() throws {
        let shape = try EntityShape(of: Everything.self)
        #expect(
            shape.description == """
                text: string
                count: integer
                small: integer
                ratio: floating
                flag: bool
                due: date?
                blob: data
                link: url
                amount: decimal
                token: uuid
                tags: [string]
                labels: [string]
                maybeTags: [string?]
                scores: [string: integer]
                byYear: [integer: [{}]]
                byYear[][].sku: string
                byYear[][].quantity: integer
                status: enum(open,done)
                priority: integer-enum(1,5)?
                owner: {}
                owner.name: string
                owner.email: string?
                lines: [{}]
                lines[].sku: string
                lines[].quantity: integer
                grid: [[floating]]
                """)
    }

    struct HandWritten: Codable {
        var title: String
        var points: Int
        var note: String
        var place: (x: Int, y: Int)

        enum CodingKeys: String, CodingKey { case title, points, note, place }
        enum PlaceKeys: String, CodingKey { case x, y }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decode(String.self, forKey: .title)
            points = try container.decodeIfPresent(Int.self, forKey: .points) ?? 0
            note = container.contains(.note) ? try container.decode(String.self, forKey: .note) : ""
            let place = try container.nestedContainer(keyedBy: PlaceKeys.self, forKey: .place)
            self.place = (try place.decode(Int.self, forKey: .x), try place.decode(Int.self, forKey: .y))
        }

        func encode(to encoder: any Encoder) throws {}
    }

    @Test func decodeIfPresentAndContainsMakeAFieldOptionalAndNestedContainersNest() throws {
        let shape = try EntityShape(of: HandWritten.self)
        #expect(
            shape.description == """
                title: string
                points: integer?
                note: string?
                place: {}
                place.x: integer
                place.y: integer
                """)
    }

    /// Stored as a single value: recorded as the value's kind.
    struct Identifier: Codable {
        var raw: String
        init(from decoder: any Decoder) throws { raw = try decoder.singleValueContainer().decode(String.self) }
        func encode(to encoder: any Encoder) throws {}
    }

    /// An unkeyed container read in a loop: one element.
    struct Path: Codable {
        var steps: [Int] = []
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            while !container.isAtEnd { steps.append(try container.decode(Int.self)) }
        }
        func encode(to encoder: any Encoder) throws {}
    }

    struct Wrappers: Codable {
        var id: Identifier
        var path: Path
    }

    @Test func singleValueAndUnkeyedTypesAreRecordedAsTheirKinds() throws {
        let shape = try EntityShape(of: Wrappers.self)
        #expect(shape.description == "id: string\npath: [integer]")
    }

    final class TreeNode: Codable {
        var name: String
        var children: [TreeNode]
        var parent: TreeNode?
        var byName: [String: TreeNode]
    }

    @Test func aTypeInsideItselfIsRecordedOnceBehindAnOptionalOrACollection() throws {
        let shape = try EntityShape(of: TreeNode.self)
        #expect(
            shape.description == """
                name: string
                children: [recursive(TreeNode)]
                parent: recursive(TreeNode)?
                byName: [string: recursive(TreeNode)]
                """)
    }

    class Base: Codable {
        var id: String
        enum CodingKeys: String, CodingKey { case id }
    }

    /// Reads its own keys, then lets its superclass read the same decoder.
    final class Derived: Base {
        var extra: Int
        enum DerivedKeys: String, CodingKey { case extra }
        required init(from decoder: any Decoder) throws {
            extra = try decoder.container(keyedBy: DerivedKeys.self).decode(Int.self, forKey: .extra)
            try super.init(from: decoder)
        }
    }

    @Test func aSubclassAndItsSuperclassReadingOneDecoderMakeOneKeyedValue() throws {
        let shape = try EntityShape(of: Derived.self)
        #expect(shape.description == "extra: integer\nid: string")
    }

    // MARK: What cannot be recorded, and says so

    enum LooseStatus: String, Codable { case open, done }
    struct WithLooseStatus: Codable {
        var id: String
        var status: LooseStatus
    }

    @Test func aRawValueEnumThatIsNotCaseIterableIsAnErrorNamingTheField() throws {
        let error = try #require(throws: ShapeRecordingError.self) { try EntityShape(of: WithLooseStatus.self) }
        #expect(error.field == "status")
        #expect(error.typeName == "LooseStatus")
        #expect(error.description.contains("rejected the recorder's placeholder"))
        #expect(error.description.contains("CaseIterable"))
    }

    enum Payment: Codable {
        case cash
        case card(number: String)
    }
    struct WithPayment: Codable {
        var id: String
        var payment: Payment
    }

    @Test func anEnumWithAssociatedValuesIsAnErrorNamingTheField() throws {
        let error = try #require(throws: ShapeRecordingError.self) { try EntityShape(of: WithPayment.self) }
        #expect(error.field == "payment")
        #expect(error.description.hasPrefix("the shape of `payment` (Payment) cannot be recorded"))
    }

    final class Chain: Codable {
        var id: String
        var next: Chain
    }

    @Test func aTypeHoldingItselfThroughARequiredFieldIsAnError() throws {
        let error = try #require(throws: ShapeRecordingError.self) { try EntityShape(of: Chain.self) }
        #expect(error.field == "next")
        #expect(error.reason.contains("holds itself through a required field"))
    }

    struct KeyedByUUID: Codable {
        var id: String
        var owners: [UUID: String]
    }

    @Test func aDictionaryKeyedByAnotherTypeThanStringOrIntegerIsAnError() throws {
        let error = try #require(throws: ShapeRecordingError.self) { try EntityShape(of: KeyedByUUID.self) }
        #expect(error.field == "owners")
        #expect(error.reason.contains("keyed by UUID"))
    }

    struct ReadsSuper: Codable {
        var id: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            id = try container.decode(String.self, forKey: AnyKey(stringValue: "id"))
            _ = try container.superDecoder()
        }
        func encode(to encoder: any Encoder) throws {}
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    @Test func aSuperDecoderIsAnError() throws {
        let error = try #require(throws: ShapeRecordingError.self) { try EntityShape(of: ReadsSuper.self) }
        #expect(error.reason.contains("super decoder"))
    }

    struct OnlyTested: Codable {
        var hasFlag: Bool
        init(from decoder: any Decoder) throws {
            hasFlag = try decoder.container(keyedBy: AnyKey.self).contains(AnyKey(stringValue: "flag"))
        }
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func aKeyOnlyTestedForPresenceIsAnErrorBecauseItsKindIsUnknown() throws {
        let error = try #require(throws: ShapeRecordingError.self) { try EntityShape(of: OnlyTested.self) }
        #expect(error.field == "flag")
        #expect(error.reason.contains("never decoded"))
    }

    @Test func aTypeThatIsNotStoredAsKeyedIsAnError() throws {
        let error = try #require(throws: ShapeRecordingError.self) { try EntityShape(of: [String].self) }
        #expect(error.field == "")
        #expect(error.reason.contains("not stored as a keyed container"))
    }

    /// Swallows what it cannot decode, as a type with a fallback value does.
    struct Swallowing: Codable {
        var status: LooseStatus?
        var history: [LooseStatus] = []
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            status = try? container.decode(LooseStatus.self, forKey: AnyKey(stringValue: "status"))
            var list = try container.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "history"))
            while !list.isAtEnd {
                if let entry = try? list.decode(LooseStatus.self) { history.append(entry) }
            }
        }
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func aRecordingErrorTheTypeSwallowsStillFailsTheRecordingAndLoopsEnd() throws {
        let error = try #require(throws: ShapeRecordingError.self) { try EntityShape(of: Swallowing.self) }
        #expect(error.field == "status")
        #expect(error.typeName == "LooseStatus")
    }

    struct Mixed: Codable {
        var pair: (String, Int)
        init(from decoder: any Decoder) throws {
            var container = try decoder.container(keyedBy: AnyKey.self).nestedUnkeyedContainer(
                forKey: AnyKey(stringValue: "pair"))
            pair = (try container.decode(String.self), try container.decode(Int.self))
        }
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func anUnkeyedContainerOfMixedKindsIsAnError() throws {
        let error = try #require(throws: ShapeRecordingError.self) { try EntityShape(of: Mixed.self) }
        #expect(error.field == "pair")
        #expect(error.reason.contains("different kinds"))
    }
}
