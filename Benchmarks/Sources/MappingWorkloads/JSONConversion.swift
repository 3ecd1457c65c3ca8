import Foundation

/// A JSON round trip: encode with `JSONEncoder`, decode the bytes as the other type.
///
/// The coder instances are created once and reused, so the comparison charges JSON only for the
/// conversion itself, not for setting up coders.
struct JSONConversion<Plain: Codable, Entity: Codable>: Conversion {
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()

    func entity(from plain: Plain) throws -> Entity {
        try decoder.decode(Entity.self, from: encoder.encode(plain))
    }

    func plain(from entity: Entity) throws -> Plain {
        try decoder.decode(Plain.self, from: encoder.encode(entity))
    }
}
