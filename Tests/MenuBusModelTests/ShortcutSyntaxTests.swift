import Foundation
import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures

final class ShortcutSyntaxTests: XCTestCase {
    /// (accelerator, what gtk_accelerator_parse makes of it)
    private let table: [(String, Bool)] = [
        ("<Control>q", true), ("<ctrl>Q", true), ("<CONTROL><Shift>z", true), ("<Primary>F5", true),
        ("<Alt>F4", true), ("<Super>space", true), ("<Meta>x", true), ("<Mod3>q", true), ("<Release>q", true),
        ("<Control><Control>q", true), ("Delete", true), ("<Control>KP_Add", true), ("XF86AudioPlay", true),
        ("<Shift>Page_Up", true), ("Prior", true), ("<Control>plus", true),
        ("Ctrl+Q", false), ("<Control>", false), ("<Shift>", false), ("", false), ("q<Control>", false),
        ("<Control> q", false), ("<Control>q ", false), ("<Foo>q", false), ("<Control>é", false),
        ("<Control>0x41", false), ("<Control>U20AC", false), ("<Control", false), ("<Control>+", false),
        ("<Control>Ctrl+Q", false), ("control+c", false),
    ]

    func testTheGrammarAsATable() {
        for (text, valid) in table {
            XCTAssertEqual(ShortcutSyntax.isValid(text), valid, text)
        }
    }

    func testAnInvalidShortcutIsRefusedNamingTheField() {
        let menu = [Fixtures.action("ok", title: "Go", shortcut: "<Control>g"), Fixtures.action("quit", title: "Quit", shortcut: "Ctrl+Q")]
        XCTAssertThrowsError(try ElementValidation.validate(menu)) {
            let error = $0 as? ModelError
            XCTAssertEqual(error?.field, "items[1].properties.shortcut")
            XCTAssertEqual(error?.kind, .invalidArgument)
            XCTAssertTrue(error?.message.contains("<Control>q") ?? false, "\(String(describing: error))")
        }
    }

    func testEveryStandardAcceleratorIsValid() {
        for command in StandardCommand.allCases {
            if let accelerator = command.accelerator { XCTAssertTrue(ShortcutSyntax.isValid(accelerator), accelerator) }
        }
    }

    /// The same table, and a sample of the key names, through GTK itself.
    func testGtkAgrees() throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("no Debian python3") }
        let names = ShortcutSyntax.keyNames.sorted()
        let sample = stride(from: 0, to: names.count, by: 17).map { "<Control>" + names[$0] }
        let inputs = table.map(\.0) + sample + names.prefix(5).map { $0 + "x" }
        let script = """
        import sys, gi
        gi.require_version("Gtk", "3.0")
        from gi.repository import Gtk
        for line in sys.stdin.read().split("\\n")[:-1]:
            key, mods = Gtk.accelerator_parse(line)
            print("1" if key != 0 else "0")
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        input.fileHandleForWriting.write(Data(inputs.map { $0 + "\n" }.joined().utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XCTSkip("GTK 3 typelib not installed") }
        let answers = String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0 == "1" }
        XCTAssertEqual(answers.count, inputs.count)
        for (text, gtk) in zip(inputs, answers) {
            XCTAssertEqual(ShortcutSyntax.isValid(text), gtk, "\(text): GTK says \(gtk)")
        }
    }

    func testEditMenusCarryStandardAcceleratorsAndContextMenusNone() {
        let edit = EditMenu.compose(context: Fixtures.richField, selection: Selection(kind: .range, length: 3, pasteboardTypes: ["text/plain"]),
                                    undo: UndoSummary(canUndo: true), providers: [], appItems: [])
        XCTAssertEqual(edit.element("menubus:cut")?.shortcut, "<Control>x")
        XCTAssertEqual(edit.element("menubus:copy")?.shortcut, "<Control>c")
        XCTAssertEqual(edit.element("menubus:paste")?.shortcut, "<Control>v")
        XCTAssertEqual(edit.element("menubus:undo")?.shortcut, "<Control>z")
        XCTAssertEqual(edit.element("menubus:select-all")?.shortcut, "<Control>a")
        XCTAssertEqual(edit.element("menubus:bold")?.shortcut, "<Control>b")
        let context = ContextMenu.compose(context: Fixtures.photo, items: [], providers: Fixtures.allRoles)
        XCTAssertFalse(context.isEmpty)
        XCTAssertTrue(context.allSatisfy { $0.shortcut == nil }, "\(context)")
        XCTAssertFalse(Lint.check(kind: .context, elements: context, composed: true).contains { $0.message.contains("shortcut") })
    }
}
