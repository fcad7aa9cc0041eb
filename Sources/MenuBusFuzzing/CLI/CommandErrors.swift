// The two errors the CLI's MenuJSON.swift and JSONSyntax.swift (linked
// beside this file) throw, as Sources/menubus-cli/CommandLineTool.swift
// declares them.

struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

