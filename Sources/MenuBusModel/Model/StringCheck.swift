/// Length checks for strings and string lists, answering with the field and
/// the bound; nothing is shortened.
enum StringCheck {
    static func length(_ text: String, field: @autoclosure () -> String,
                       maxBytes: Int = Limits.maxStringBytes) throws(ModelError) {
        let count = text.utf8.count
        guard count <= maxBytes else {
            throw .limit(field(), "a string of \(count) bytes is longer than the limit of \(maxBytes) bytes")
        }
    }

    static func list(_ items: [String], field: @autoclosure () -> String, maxCount: Int) throws(ModelError) {
        guard items.count <= maxCount else {
            throw .limit(field(), "\(items.count) entries are more than the limit of \(maxCount)")
        }
        for (index, item) in items.enumerated() {
            try length(item, field: field() + "[\(index)]")
        }
    }
}
