/// Takes a conversion's result so the optimizer must produce it.
///
/// Without a use the compiler may delete a conversion whose result is unused (creating an entity
/// and dropping it has no visible effect), and the benchmark would time an empty loop.
/// `@inline(never)` keeps the call; `@_optimize(none)` keeps the body from being analyzed as
/// side-effect free, so the call cannot be removed either. The value is not stored anywhere,
/// which would allocate a box and distort the allocation counts.
@inline(never)
@_optimize(none)
public func consumeOpaquely<Value>(_ value: Value) {}
