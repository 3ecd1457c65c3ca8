import DAOKit
import Foundation

/// Custom coders that store a transformed value. The domain's `encode(to:)` stores `amount` times
/// ten and its `init(from:)` divides it back, so the stored `amount` is never the domain's; the
/// entity's `encode(to:)` writes `code` lowercased and its `init(from:)` uppercases it, so the
/// value a query reads from the entity (its encoding) is the lowercased one the domain gets.
/// `label` is stored as it is.
enum TransformingCoderModel: DifferentialModel {
    struct Price: Codable, Identifiable, Equatable {
        var id: String
        var amount: Int
        var code: String
        var label: String

        init(id: String, amount: Int, code: String, label: String) {
            self.id = id
            self.amount = amount
            self.code = code
            self.label = label
        }

        enum CodingKeys: String, CodingKey { case id, amount, code, label }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            amount = try container.decode(Int.self, forKey: .amount) / 10
            code = try container.decode(String.self, forKey: .code)
            label = try container.decode(String.self, forKey: .label)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(amount * 10, forKey: .amount)
            try container.encode(code, forKey: .code)
            try container.encode(label, forKey: .label)
        }
    }

    struct PriceEntity<Indexing: IndexChoice>: Storable {
        static var indexes: [StorageIndex] { Indexing.choose([StorageIndex("amount"), StorageIndex("code", "label")]) }
        var id: String
        var amount: Int
        var code: String
        var label: String

        enum CodingKeys: String, CodingKey { case id, amount, code, label }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            amount = try container.decode(Int.self, forKey: .amount)
            code = try container.decode(String.self, forKey: .code).uppercased()
            label = try container.decode(String.self, forKey: .label)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(amount, forKey: .amount)
            try container.encode(code.lowercased(), forKey: .code)
            try container.encode(label, forKey: .label)
        }
    }

    typealias Domain = Price
    typealias IndexedEntity = PriceEntity<Indexed>
    typealias PlainEntity = PriceEntity<Unindexed>

    static let name = "transforming coders"

    static let amounts = [0, 1, 5, 9, 10, 50, 99, 100, -7]
    static let codes = ["eur", "usd", "nok", "EUR", "Usd"]
    static let labels = ["cheap", "dear", "Ça va", "ça va"]

    static func values(_ random: inout SeededGenerator) -> [Price] {
        (0..<24).map { index in
            Price(
                id: "p\(index)", amount: random.pick(amounts), code: random.pick(codes).lowercased(),
                label: random.pick(labels))
        }
    }

    static var fields: [QueryField<Price>] {
        [
            .comparable("amount", \.amount, pool: amounts + [50 * 10, 9 * 10]),
            .text("code", \.code, pool: codes, fragments: ["e", "E", "us", "US", "k"]),
            .text("label", \.label, pool: labels, fragments: ["ch", "Ç", "ç", "a v"]),
            .comparable("id", \.id, pool: ["p0", "p13", "p2", "p9", "q"], show: { $0.debugDescription }),
        ]
    }

    static var sorts: [QuerySort<Price>] {
        [.by("amount", \.amount), .by("code", \.code), .by("label", \.label)]
    }

    static var idSort: QuerySort<Price> { .by("id", \.id) }
}
