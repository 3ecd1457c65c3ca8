// What the mapper reads from a `String`'s own two words, for the keys it stores on every field.
//
// A key is nearly always a synthesized `CodingKeys` name: a literal, and when it is 15 UTF-8 bytes or
// fewer, a small string whose bytes sit in the `String` value itself. Both are immortal (their
// reference count never changes), so destroying one does nothing, yet the generic destroy makes a
// call per key to find that out; and the bytes of a small string can be read straight from its
// words, where `withContiguousStorageIfAvailable` first copies them to the stack.
//
// Layout relied on (the standard library's `_StringObject` on 64-bit platforms): the second word's
// top byte is the discriminator; its bit 7 marks an immortal string, bits 7, 6 and 5 together a
// small ASCII string, whose count is the low four bits and whose bytes are the first word, then the
// second word's low seven bytes, in order. `isSupported` checks all of that once on known strings;
// when it fails every string takes the general path (destroyed normally, bytes read through
// `withContiguousStorageIfAvailable`), so a different layout costs speed, never correctness.
//
// Invariant: a string is left undestroyed only when `isSupported` and its immortal bit is set, and
// raw bytes are read only from a small ASCII string, `count` of them; the bits past `count` are
// masked off, so what is hashed is exactly the string's content, whatever the padding holds.

enum StringBits {
    /// Whether this toolchain lays strings out as described above.
    static let isSupported: Bool = {
        guard MemoryLayout<String>.size == 16 else { return false }
        let small = words("ab")
        let literal = words("a literal longer than fifteen bytes")
        let heap = words(String(repeating: "x", count: 40))
        let smallNonASCII = words("\u{E9}")
        return small.1 >> 56 == 0xE2 && small.0 == 0x6261
            && literal.1 >> 63 == 1
            && heap.1 >> 63 == 0
            && smallNonASCII.1 >> 56 & 0xE0 == 0xA0
    }()

    @inline(__always)
    private static func words(_ string: borrowing String) -> (UInt64, UInt64) {
        unsafeBitCast(string, to: (UInt64, UInt64).self)
    }

    /// Whether destroying `string` does nothing: it is immortal (a literal or a small string).
    /// Only where ``isSupported``; callers check it once and keep the answer (see `ContainerNode`),
    /// because reading a lazily initialised global costs a call every time.
    @inline(__always)
    static func isImmortal(_ string: borrowing String) -> Bool {
        words(string).1 >> 63 == 1
    }

    /// When `string` is a small ASCII string: its bytes as two little-endian words, zero past its
    /// length (the first eight bytes, then the rest); `nil` otherwise. Only where ``isSupported``.
    @inline(__always)
    static func smallASCII(_ string: borrowing String) -> (low: UInt64, high: UInt64)? {
        let (low, high) = words(string)
        guard high >> 61 == 0b111 else { return nil }
        let count = high >> 56 & 0xF
        if count <= 8 {
            return (count == 8 ? low : low & ((1 &<< (count &* 8)) &- 1), 0)
        }
        return (low, high & ((1 &<< ((count &- 8) &* 8)) &- 1))
    }
}
