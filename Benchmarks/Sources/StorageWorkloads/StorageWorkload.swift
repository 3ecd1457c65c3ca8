/// One timed unit of the storage benchmarks: one operation on a store, done one way.
///
/// Like `MappingWorkload`, it is shared by the package-benchmark suite and `ratios`, so that both
/// tools time exactly the same work.
public struct StorageWorkload {
    /// What is done, such as `dao.memory.readAll` or `files.persistOne`.
    public let operation: String
    /// How it is done: `dao` (through `BaseDao`), `direct` (the mapper and the context called by
    /// hand), `raw` (the same I/O by hand, no DAOKit), or a part of the work such as `fetchAll`.
    public let variant: String
    /// Performs the operation `iterations` times, consuming every result.
    ///
    /// The loop lives inside the workload, so that a batch costs one indirect call rather than one
    /// per operation. The first call may set up the store the workload runs on (see
    /// ``StorageWorkloadSet/prepare``); call `prepare` first so that setting up is never timed.
    public let run: (_ iterations: Int) throws -> Void

    /// `<operation> <variant>`, such as `dao.memory.readAll direct`.
    public var name: String { "\(operation) \(variant)" }
}
