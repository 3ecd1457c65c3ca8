/// Takes a result so that the optimizer must produce it.
///
/// The same device as `MappingWorkloads`' sink (kept separate so that the two workload libraries
/// do not depend on each other): `@inline(never)` keeps the call and `@_optimize(none)` keeps the
/// body from being seen as side-effect free, so a read whose result is unused is still done.
@inline(never)
@_optimize(none)
func consumeOpaquely<Value>(_ value: Value) {}
