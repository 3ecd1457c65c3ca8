import Foundation

/// A binary property-list round trip, the other Codable format Foundation ships.
///
/// Like ``JSONConversion``, the coder instances are created once and reused.
struct PropertyListConversion<Plain: Codable, Entity: Codable>: Conversion {
    let encoder: PropertyListEncoder = {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return encoder
    }()
    let decoder = PropertyListDecoder()

    func entity(from plain: Plain) throws -> Entity {
        try decoder.decode(Entity.self, from: encoder.encode(plain))
    }

    func plain(from entity: Entity) throws -> Plain {
        try decoder.decode(Plain.self, from: encoder.encode(entity))
    }
}
