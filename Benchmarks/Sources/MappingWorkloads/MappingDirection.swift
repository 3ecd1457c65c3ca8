/// Which way a conversion runs; the raw value is the name printed in reports.
public enum MappingDirection: String, CaseIterable, Sendable {
    /// Plain → entity, as a DAO does before saving.
    case plainToEntity = "p2e"
    /// Entity → plain, as a DAO does after fetching.
    case entityToPlain = "e2p"
    /// Plain → entity → plain: both halves in one operation.
    case roundtrip
}
