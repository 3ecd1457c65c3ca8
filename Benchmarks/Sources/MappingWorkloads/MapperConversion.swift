import DAOKit

/// DAOKit's `EntityMapper`, called exactly as app code calls it.
///
/// One mapper is created per workload and reused, as an app (or a `BaseDao`) keeps one.
struct MapperConversion<Plain: Codable, Entity: Codable>: Conversion {
    let mapper: EntityMapper

    func entity(from plain: Plain) throws -> Entity {
        try mapper.map(plain, to: Entity.self)
    }

    func plain(from entity: Entity) throws -> Plain {
        try mapper.map(entity, to: Plain.self)
    }
}
