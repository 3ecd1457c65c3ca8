/// A section that cannot measure what it should.
struct SectionFailure: Error, CustomStringConvertible {
    let description: String
}
