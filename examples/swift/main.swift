// A text field's side of MenuBus in Swift, with the MenuBus client library.
//
// Registers with menubusd, publishes one text field and its selection, keeps
// its undo history in menubusd, and handles Copy and Undo chosen in its edit
// menu. With --demo it plays a short scripted session and exits.
//
//   swift run menubus-example -- --demo

#if canImport(Glibc)
import Glibc
#endif
import MenuBus

let demo = CommandLine.arguments.dropFirst().contains("--demo")
let document = "letter"
var text = ""
var clipboard = ""
var handled: [String] = []

do {
    let app = try MenuBusClient()
    app.onCommand = { command in
        handled.append(command.name)
        switch command.command {
        case .copy:
            clipboard = text
            print("copied \"\(clipboard)\"")
        case .undo:
            // The app pulls the step itself; payloads come newest first.
            do {
                let step = try app.undo(document: document)
                if let oldest = step.payloads.last { text = String(decoding: oldest, as: UTF8.self) }
                print("undid \"\(step.actionName)\": text is now \"\(text)\"")
            } catch {
                print("undo failed: \(error)")
            }
        default:
            print("command \(command.name) is not handled by this example")
        }
    }
    try app.register(appId: "org.example.SwiftEditor")
    try app.publishContext("body", ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true,
                                               hasContent: true, document: document, title: "Letter"))
    // After a menubusd restart the library has registered and published again.
    app.onDaemonRestart = { print("menubusd restarted; registered and published \"body\" again") }
    guard demo else {
        print("org.example.SwiftEditor is serving; Ctrl-C stops")
        while app.isConnected { app.runForever() }
        exit(0)
    }
    for letter in ["D", "e", "a", "r"] {
        let before = Array(text.utf8)
        text += letter
        try app.registerUndo(document: document, actionName: "Typing", undo: before, redo: Array(text.utf8), mergeKey: "typing")
    }
    let state = try app.undoState(document: document)
    print("typed \"\(text)\"; menubusd offers \"\(state.undoTitle)\" (\(state.undoCount) step)")
    try app.updateSelection("body", Selection(kind: .all, length: UInt32(text.count), text: text))
    for (item, command) in [("menubus:copy", "copy"), ("menubus:undo", "undo")] {
        let menu = try app.present(contextId: "body", kind: .edit)
        try app.activate(menu, itemId: item)
        guard app.run(until: { handled.contains(command) }, timeout: 5) else {
            print("\(command) did not arrive")
            exit(1)
        }
    }
    print("done")
} catch {
    print("editor: \(error)")
    exit(1)
}
