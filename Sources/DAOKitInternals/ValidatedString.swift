/// The text `codeUnits` spell in `encoding`, or `nil` when they are not valid in it (a truncated
/// sequence, a lone surrogate, an overlong form).
///
/// `String(validating:as:)` says this directly, but it needs macOS 15 / iOS 18 and the package
/// supports macOS 14 / iOS 17; so every caller in the package uses this one helper instead.
package func validatedString<CodeUnits: Collection, Encoding: Unicode.Encoding>(
    _ codeUnits: CodeUnits, as encoding: Encoding.Type
) -> String? where CodeUnits.Element == Encoding.CodeUnit {
    let invalid = transcode(codeUnits.makeIterator(), from: encoding, to: UTF32.self, stoppingOnError: true) { _ in }
    return invalid ? nil : String(decoding: codeUnits, as: encoding)
}
