/// The storage contexts the DAO benchmarks run on; the raw value is the name printed in reports.
public enum DaoContextKind: String, CaseIterable, Sendable {
    /// `InMemoryStorageContext`: snapshots copied with `EntityMapper`.
    case memory
    /// `KeyValueStorageContext` over an `InMemoryKeyValueStore`: JSON records in a dictionary, so
    /// the numbers show the context's own cost (encoding, decoding, listing keys), not `UserDefaults`'.
    case keyValue
}
