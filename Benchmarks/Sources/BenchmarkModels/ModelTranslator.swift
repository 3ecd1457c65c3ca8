/// A hand-written translator between a plain model and its storage entity: the boilerplate
/// `EntityMapper` replaces, and the baseline every benchmark compares against.
///
/// It is a protocol so that the benchmark workloads can be written once, generically, and still be
/// specialized by the compiler into direct calls, as if the app had called the translator itself.
public protocol ModelTranslator {
    associatedtype Plain: Codable & Equatable
    associatedtype Entity: Codable

    /// Plain → entity ("p2e"): what a DAO does before saving.
    static func entity(from plain: Plain) -> Entity

    /// Entity → plain ("e2p"): what a DAO does after fetching.
    static func plain(from entity: Entity) -> Plain
}
