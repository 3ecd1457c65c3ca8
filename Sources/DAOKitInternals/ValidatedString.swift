/// The text `codeUnits` spell in `encoding`, or `nil` when they are not valid in it (a truncated
/// sequence, a lone surrogate, an overlong form).
///
/// `String(validating:as:)` says this directly, but it needs macOS 15 / iOS 18 and the package
/// supports macOS 14 / iOS 17; so every caller in the package uses this one helper instead.
///
/// Inlinable, so that it is specialized for the caller's collection and encoding: the generic
/// transcoding runs several witness calls per code unit, which made it most of the cost of
/// reading a key-value record's key. Text that is all ASCII (code units below 0x80, one scalar
/// each in UTF-8, UTF-16 and UTF-32, the encodings the package uses) is valid without looking
/// further.
@inlinable
package func validatedString<CodeUnits: Collection, Encoding: Unicode.Encoding>(
    _ codeUnits: CodeUnits, as encoding: Encoding.Type
) -> String? where CodeUnits.Element == Encoding.CodeUnit {
    if codeUnits.allSatisfy({ $0 < 0x80 }) { return String(decoding: codeUnits, as: encoding) }
    let invalid = transcode(codeUnits.makeIterator(), from: encoding, to: UTF32.self, stoppingOnError: true) { _ in }
    return invalid ? nil : String(decoding: codeUnits, as: encoding)
}
