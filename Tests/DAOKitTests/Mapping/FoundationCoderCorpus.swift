import Foundation
import Testing

@testable import DAOKit

// The differential corpus grown from the shapes Foundation's own coder tests exercise (its
// `JSONEncoderTests` and `PropertyListEncoderTests`), rewritten for DAOKit: single-value types at
// the top level, classes sharing a container with their superclass, nested containers and the
// coding paths they report, optionals omitted from keyed and unkeyed containers, dictionaries
// with String, Int and other keys, enums, wide integers, dynamic metatypes, and a container's
// state after failed reads. (`superEncoder`/`superDecoder` cases are kept apart: their code path
// is being rewritten.) Every case must give what a `JSONEncoder` + `JSONDecoder` round trip gives;
// where the mapper differs from JSON by design, `DesignedDifferencesFromJSONTests` says so.

extension DifferentialCase {
    /// A case whose reference is JSON's result rather than the source value: `Target` records
    /// what its decoder did (coding paths, counts, indexes), so only the two decoders' results
    /// can be compared.
    init<Source: Encodable & Sendable, Target: Decodable & Equatable & Sendable>(
        decoding target: Target.Type, from source: Source, named name: String
    ) {
        typeName = name
        check = { mapper in
            let json = try JSONDecoder().decode(Target.self, from: JSONEncoder().encode(source))
            let mapped = try mapper.map(source, to: Target.self)
            #expect(mapped == json)
        }
    }

    /// A case with a comparison of its own.
    init(named name: String, check: @escaping @Sendable (EntityMapper) throws -> Void) {
        typeName = name
        self.check = check
    }
}

enum FoundationCoderCorpus {
    static let cases: [DifferentialCase] =
        topLevelShapes + containerShapes + optionalShapes + keyShapes
        + enumShapes + numberShapes + decoderStateShapes + metatypeShapes

    static let topLevelShapes: [DifferentialCase] = [
        DifferentialCase(Holder(value: NoFieldsStruct())),
        DifferentialCase(Holder(value: NoFieldsClass())),
        DifferentialCase(LightSwitch.on),
        DifferentialCase([LightSwitch.off, .on]),
        DifferentialCase(Epoch(seconds: 3_141_592_653)),
        DifferentialCase(Tally(count: 42)),
        DifferentialCase(PostalAddress.sample),
        DifferentialCase(Member(name: "Ada", email: "ada@example.com")),
        DifferentialCase(StaffMember(name: "Grace", email: "grace@example.com", staffNumber: 7)),
        DifferentialCase(
            Firm(address: .sample, staff: [StaffMember(name: "Lin", email: "lin@example.com", staffNumber: 1)])),
        DifferentialCase(TriState.yes),
        DifferentialCase([TriState.yes, .no, .unknown]),
        DifferentialCase(LuckyNumbers()),
        DifferentialCase(Lookup(entries: ["swift": 6, "localhost": 127])),
        DifferentialCase(URL(string: "https://swift.org/documentation/")!),
        DifferentialCase(
            Optional(
                URL(string: "http://localhost:8080/a b".addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!)!
            )),
        DifferentialCase(Date(timeIntervalSinceReferenceDate: -1_000.5)),
        DifferentialCase(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        DifferentialCase(BigDecimals()),
        DifferentialCase(Catalog.sample),
    ]

    static let containerShapes: [DifferentialCase] = [
        DifferentialCase(decoding: CodingPathRecorder.self, from: CodingPathRecorder(), named: "CodingPathRecorder"),
        DifferentialCase(
            decoding: Holder<CodingPathRecorder>.self, from: Holder(value: CodingPathRecorder()),
            named: "CodingPathRecorder, nested"),
        DifferentialCase(
            decoding: [[String: PathLeaf]].self, from: [["a": PathLeaf()], ["b": PathLeaf()]],
            named: "Array<Dictionary<String, PathLeaf>>"),
        DifferentialCase(decoding: [PathLeaf].self, from: [PathLeaf(), PathLeaf()], named: "Array<PathLeaf>"),
        DifferentialCase(
            decoding: [String: PathLeaf].self, from: ["x": PathLeaf()], named: "Dictionary<String, PathLeaf>"),
        DifferentialCase(BatchWriter(values: [1, 2, 3], names: ["a", "b"])),
        DifferentialCase(ConditionalHolder(reference: Tally(count: 3))),
        DifferentialCase(KeyCollector(entries: ["b": 2, "a": 1, "c": 3])),
        DifferentialCase(KeyCollector(entries: [:])),
        DifferentialCase(IntKeyed(alpha: 1, beta: "two")),
        DifferentialCase([Firm(address: .sample, staff: []), Firm(address: .sample, staff: [])]),
        DifferentialCase([[String: [Int]]]([["a": [1, 2]], [:], ["b": []]])),
        DifferentialCase(ContiguousArray([1.5, -2.25])),
        DifferentialCase(1...5),
        DifferentialCase(Set([3, 1, 2])),
    ]

    static let optionalShapes: [DifferentialCase] = [
        DifferentialCase(KeyedOmittedOptionals()),
        DifferentialCase(KeyedOmittedOptionals.full),
        DifferentialCase(UnkeyedOptionals()),
        DifferentialCase(UnkeyedOptionals.full),
        DifferentialCase(UnkeyedGenericOptionals()),
        DifferentialCase(UnkeyedGenericOptionals.full),
        DifferentialCase(TriStateHolder(state: .unknown, states: [.unknown, .yes])),
        DifferentialCase([String: Int?](dictionaryLiteral: ("present", 1), ("absent", nil))),
        DifferentialCase(Optional(Optional(3))),
        DifferentialCase([Int?]([nil, nil])),
        DifferentialCase(decoding: NullThenValue.self, from: [nil, 3] as [Int?], named: "NullThenValue"),
    ]

    static let keyShapes: [DifferentialCase] = [
        DifferentialCase([-7: "minus seven", 0: "zero", Int.max: "max"]),
        DifferentialCase(["": 0, "with space": 1, "ünïcödé": 2]),
        DifferentialCase([Int8(-1): true, 5: false]),
        DifferentialCase([1.5: "one and a half", -0.25: "negative"]),
        DifferentialCase([UInt16(9): [1, 2]]),
        DifferentialCase([MessageKind.text: [MessageKind.photo: 1]]),
    ]

    static let enumShapes: [DifferentialCase] = [
        DifferentialCase(Verdict.pending),
        DifferentialCase([Verdict.accepted(score: 9, by: "jury"), .rejected(["late", "short"]), .pending]),
        DifferentialCase(Holder(value: Verdict.rejected([]))),
        DifferentialCase(Priority.high),
        DifferentialCase([MessageKind.voice, .text]),
        DifferentialCase(Tree.node("root", [.node("empty", []), .leaf(-1)])),
        DifferentialCase([OneOf.number(1), .text("a")]),
    ]

    static let numberShapes: [DifferentialCase] = {
        var shapes = [
            DifferentialCase(Extremes()),
            DifferentialCase(
                Floats(
                    single: -.greatestFiniteMagnitude, double: .greatestFiniteMagnitude, tiny: -.leastNormalMagnitude)),
            DifferentialCase([Double(1 << 53), 0.1, -0.0]),
            DifferentialCase(Epoch(seconds: 0.000_001)),
        ]
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            shapes.append(DifferentialCase(WideFields(signed: .min, unsigned: .max, optional: -1, list: [0, .max])))
            shapes.append(DifferentialCase(WideFields(signed: 5, unsigned: 0, optional: nil, list: nil)))
        }
        return shapes
    }()

    static let decoderStateShapes: [DifferentialCase] = [
        DifferentialCase(decoding: UnkeyedEndProbe.self, from: [7, nil] as [Int?], named: "UnkeyedEndProbe"),
        DifferentialCase(decoding: ElementCounter.self, from: [[1, 2], [], [3]], named: "ElementCounter"),
        DifferentialCase(decoding: ElementCounter.self, from: [[Int]](), named: "ElementCounter, empty"),
        DifferentialCase(
            decoding: RetryingReader.self, from: [OneOf.text("x"), .number(2), .fraction(3.5), .flag(true)],
            named: "RetryingReader"),
    ]

    static let metatypeShapes: [DifferentialCase] = [
        DifferentialCase(named: "StaffMember as Member.Type") { mapper in
            let staff = StaffMember(name: "Joan", email: "joan@example.com", staffNumber: 9)
            let target: Member.Type = StaffMember.self
            let json = try JSONDecoder().decode(target, from: JSONEncoder().encode(staff))
            let mapped = try mapper.map(staff, to: target)
            #expect(type(of: mapped) == type(of: json))
            #expect(mapped == json)
        },
        DifferentialCase(named: "Array<StaffMember> as Array<Member>") { mapper in
            let staff = [StaffMember(name: "Joan", email: "joan@example.com", staffNumber: 9)]
            let json = try JSONDecoder().decode([Member].self, from: JSONEncoder().encode(staff))
            if mapper.isStrict {
                // The static element type drops `staffNumber`, which a strict mapper reports.
                let error = try #require(throws: MappingError.self) { try mapper.map(staff, to: [Member].self) }
                #expect(error.kind == .unmappedKey && error.path == "[0].staffNumber")
                return
            }
            let mapped = try mapper.map(staff, to: [Member].self)
            #expect(mapped.map { ObjectIdentifier(type(of: $0)) } == json.map { ObjectIdentifier(type(of: $0)) })
            #expect(mapped == json)
        },
    ]
}
