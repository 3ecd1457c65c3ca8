/// One strategy for converting a plain model to its entity and back.
///
/// Workloads are generic over this protocol so they are written once; the compiler specializes
/// them for each concrete conversion, leaving direct calls in the timed loops.
protocol Conversion {
    associatedtype Plain
    associatedtype Entity

    func entity(from plain: Plain) throws -> Entity
    func plain(from entity: Entity) throws -> Plain
}
