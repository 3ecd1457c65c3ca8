/// Runs `body` with the value `optional` holds, in place; does nothing when it holds none.
///
/// For a generic `T`, `if let value = optional` copies the whole optional first, and copying a
/// `T?` goes through the value witnesses of `Optional<T>`, whose metadata the runtime looks up in
/// its generic-metadata cache on every call: a visible share of mapping a small value with one
/// optional field. A borrowing switch (which `T: ~Copyable` makes the compiler use, for
/// copyable types too) asks `T`'s own value witnesses for the case and hands the payload over
/// where it lies: no copy, no `Optional<T>` metadata.
@inline(__always)
func withValue<T: ~Copyable>(in optional: borrowing T?, _ body: (borrowing T) throws -> Void) rethrows {
    switch optional {
    case .some(let value): try body(value)
    case .none: break
    }
}
