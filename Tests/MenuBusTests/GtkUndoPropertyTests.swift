import Foundation
import XCTest

/// MenuBus undo in a real field, as a property: mousepad's search field (a
/// GtkEntry, which has no undo of its own in GTK 3 and gets MenuBus's from
/// the GTK 3 module) takes 200 random steps (typing, BackSpace, Delete,
/// caret moves and selections, Make Uppercase chosen in the context menu,
/// Undo and Redo from the keyboard and from the menu), and after each its
/// text, caret and selection, read through AT-SPI, and its history in
/// menubusd (GetUndoState's counts and step names) must be what a model of
/// the field and its undo history says (Tests/apps/undo_property.py).
///
/// The steps come from a seed: a failure names it and the steps that led
/// there; `MENUBUS_UNDO_SEED=N` runs that seed again in the random test.
final class GtkUndoPropertyTests: DesktopProgramTestCase {
    private static let script = Repository.root.appendingPathComponent("Tests/apps/undo_property.py")
    private static let steps = 200

    private func requirements() throws {
        try requireDesktopTools([(GtkAppDriver.apps["mousepad"] ?? "/usr/bin/mousepad", "mousepad")])
        guard FileManager.default.fileExists(atPath: GtkAppDriver.moduleFile.path) else {
            throw TestFailure("no GTK 3 module at \(GtkAppDriver.moduleFile.path): run `make shims` to build it")
        }
    }

    /// Runs `seed`'s steps in a fresh mousepad beside menubusd; fails with
    /// the seed, the steps and the first difference.
    private func checkSeed(_ seed: UInt32, file: StaticString = #filePath, line: UInt = #line) throws {
        try requirements()
        _ = try startMenubusd()
        var environment = try bus.environment
        environment["TMPDIR"] = try Self.root.appendingPathComponent("tmp").path
        let driver = try GtkAppDriver(app: "mousepad", module: true, environment: environment, script: Self.script)
        addTeardownBlock { driver.stop() }
        let answer = try driver.attempt("undo-property \(seed) \(Self.steps)", timeout: 600)
        guard answer["ok"] as? Bool == true else {
            XCTFail(Self.failure(answer, seed: seed) + "\n" + driver.diagnostics, file: file, line: line)
            return
        }
        XCTAssertEqual(answer["steps"] as? Int, Self.steps, "\(answer)", file: file, line: line)
        print("undo property, seed \(seed): \(Self.steps) steps in \(answer["ms"] ?? "?") ms, "
              + "kinds \(answer["kinds"] ?? [:]), final text \((answer["text"] as? String ?? "").debugDescription)")
    }

    /// The failure as a reader needs it: seed, steps, states, the model's stacks, how to run it again.
    private static func failure(_ answer: [String: Any], seed: UInt32) -> String {
        let steps = answer["steps"] as? [String] ?? []
        var lines = ["undo property, seed \(seed): \(answer["error"] ?? answer)"]
        if let step = answer["step"] as? Int {
            lines.append("at step \(step) of \(Self.steps): \(steps.last ?? "?")")
        }
        lines.append("steps: " + steps.enumerated().map { "\($0.offset): \($0.element)" }.joined(separator: "; "))
        for key in ["before", "expected", "actual", "model"] {
            if let value = answer[key],
               let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) {
                lines.append("\(key): \(String(decoding: data, as: UTF8.self))")
            }
        }
        lines.append("again: MENUBUS_UNDO_SEED=\(seed) swift test --disable-swift-testing "
                     + "--filter GtkUndoPropertyTests/testSearchFieldMatchesTheModelAfterEveryRandomStep")
        return lines.joined(separator: "\n")
    }

    /// A seed whose steps choose Make Uppercase often (13 of 200), the same every run.
    func testSearchFieldMatchesTheModelAfterEveryStepOfAFixedSeed() throws {
        try checkSeed(9)
    }

    /// A new seed each run (or MENUBUS_UNDO_SEED's), printed.
    func testSearchFieldMatchesTheModelAfterEveryRandomStep() throws {
        let given = ProcessInfo.processInfo.environment["MENUBUS_UNDO_SEED"].flatMap { UInt32($0) }
        let seed = given ?? UInt32.random(in: 0...999_999)
        print("undo property: seed \(seed)\(given == nil ? "" : " (MENUBUS_UNDO_SEED)")")
        try checkSeed(seed)
    }
}
