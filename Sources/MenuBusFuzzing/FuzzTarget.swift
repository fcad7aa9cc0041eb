// The fuzz targets are built in debug only: they reach internal API
// (`withBodyCursor`, `PresentationOptions(wire:)`, the undo records) through
// `@testable import`, which a debug build allows (SwiftPM compiles debug
// modules with testing enabled) and a release build does not. In release,
// this module is empty and `menubus-fuzz` says so.
#if DEBUG

/// One fuzz target: a name `bench/fuzz.sh` and `menubus-fuzz` take, and the
/// function libFuzzer calls with each input. Every entry point takes any
/// bytes; a crash, a trap or a broken invariant (`FuzzCheck.require`) is a
/// finding, a thrown error is an input refused as it should be.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// `MessageReader`: a signature and a body in either byte order, through
    /// libdbus's loader, read as values, re-marshalled byte for byte.
    case reader
    /// `BodyCursor`: a program of cursor reads over any body.
    case cursor
    /// Elements `a(ssa{sv})`, read as values and straight from the body:
    /// the same elements and the same fault both ways.
    case elements
    /// A context `a{sv}`.
    case context
    /// A selection `a{sv}`.
    case selection
    /// A presentation's options `a{sv}`.
    case options
    /// The key-file parser, through provider declarations and the policy.
    case keyfile
    /// The undo journal's replay: any bytes, torn and flipped journals.
    case undo
    /// The CLI's JSON menus (`menubus-cli publish FILE` and friends).
    case json

    /// The target libFuzzer's driver runs (set once, before it starts).
    nonisolated(unsafe) package static var selected: FuzzTarget?

    /// Runs one input.
    package func run(_ data: UnsafeRawBufferPointer) {
        switch self {
        case .reader: fuzzMessageReader(data)
        case .cursor: fuzzBodyCursor(data)
        case .elements: fuzzElements(data)
        case .context: fuzzContext(data)
        case .selection: fuzzSelection(data)
        case .options: fuzzOptions(data)
        case .keyfile: fuzzKeyFile(data)
        case .undo: fuzzUndoReplay(data)
        case .json: fuzzMenuJSON(data)
        }
    }

    /// Runs one input held in an array (the replay and the regression test).
    package func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { run($0) }
    }
}

/// A broken invariant: a trap libFuzzer records as a crash with its input.
/// Only the fuzzing executable and its regression test link this module
/// (SourceLayoutTests keeps it so): nothing menubusd or a client runs can
/// reach it.
enum FuzzCheck {
    static func require(_ condition: Bool, _ message: @autoclosure () -> String,
                        file: StaticString = #fileID, line: UInt = #line) {
        if !condition { fatalError("fuzz invariant: \(message())", file: file, line: line) }
    }
}

#endif
