/// A usage mistake: exit status 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A failure to report in one line: exit status 1.
struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
