/// Renders coding paths as `messages[2].text`.
enum MappingPath {
    static func render(_ path: [any CodingKey]) -> String {
        if path.isEmpty { return "<root>" }
        var result = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == String(index) {
                result += "[\(index)]"
            } else {
                if !result.isEmpty { result += "." }
                result += key.stringValue
            }
        }
        return result
    }
}
