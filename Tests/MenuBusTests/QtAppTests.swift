import Foundation
import XCTest
@testable import MenuBus

/// The Qt platform theme in an unmodified Qt 5 Widgets program: featherpad
/// under Xvfb with `QT_QPA_PLATFORMTHEME=menubus` and the plugin `make
/// shims` builds on QT_PLUGIN_PATH, beside menubusd and the bundled
/// providers; driven from the keyboard and the mouse and read through
/// AT-SPI only (Qt's accessibility bridge, Tests/apps/gtk_app.py). The
/// editor is a QPlainTextEdit, the search field a QLineEdit; Qt's menus
/// open with a right click or the Menu key (Shift+F10 opens none).
final class QtAppTests: DesktopProgramTestCase {
    /// The plugin as `make shims` builds it, and the QT_PLUGIN_PATH that finds it.
    static let pluginDirectory = Repository.root.appendingPathComponent(".build/shims/qt5")
    static let pluginFile = pluginDirectory.appendingPathComponent("platformthemes/libmenubus.so")

    private static let sentence = "the quick brown fox"
    /// Qt's own edit items, which must never show twice.
    private static let qtItems = ["Undo", "Redo", "Cut", "Copy", "Paste", "Delete", "Select All"]

    private func requireFeatherpad() throws {
        try requireDesktopTools([("/usr/bin/featherpad", "featherpad")])
    }

    /// The plugin must be built: a missing plugin fails the test, it does not skip it.
    private func requirePlugin() throws {
        guard FileManager.default.fileExists(atPath: Self.pluginFile.path) else {
            throw TestFailure("no Qt 5 platform theme at \(Self.pluginFile.path): run `make shims` to build it")
        }
    }

    /// featherpad with Qt's accessibility bridge on, with or without the theme.
    private func launchFeatherpad(theme: Bool) throws -> GtkAppDriver {
        var environment = ["QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
                           "QT_QPA_PLATFORMTHEME": "", "MENUBUS_DISABLE": ""]
        if theme {
            environment["QT_QPA_PLATFORMTHEME"] = "menubus"
            environment["QT_PLUGIN_PATH"] = Self.pluginDirectory.path
        }
        return try launchProgram("featherpad", module: false, extraEnvironment: environment)
    }

    /// Types the sentence into `widget` and selects its last word from the keyboard.
    private func typeAndSelect(_ driver: GtkAppDriver, in widget: String, _ text: String) throws {
        try driver.focus(widget)
        if try !driver.text().isEmpty { try driver.clear() }
        try driver.type(text)
        let word = String(text.split(separator: " ").last ?? "")
        XCTAssertEqual(try driver.selectWordLeft(), word, "featherpad \(widget): the selection read through AT-SPI")
    }

    /// Qt's standard items at most once each, and nothing else twice.
    private func assertQtItemsOnce(_ menu: GtkAppDriver.OpenedMenu, _ context: String,
                                   file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(menu.repeatedLabels, [], "\(context): an item twice in \(menu)", file: file, line: line)
        for label in Self.qtItems {
            XCTAssertLessThanOrEqual(menu.labels.filter { $0 == label }.count, 1, "\(context): \(label) twice in \(menu)",
                                     file: file, line: line)
        }
    }

    /// Qt's standard items of a menu, in order, with their sensitivity.
    private func standardPart(_ menu: GtkAppDriver.OpenedMenu) -> [GtkAppDriver.Item] {
        menu.items.filter { Self.qtItems.contains($0.label) }
    }


    func testFeatherpadEditorMenuWithoutTheThemeIsQtsOwn() throws {
        try requireFeatherpad()
        let driver = try launchFeatherpad(theme: false)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        let menu = try driver.openMenu("menu-key")
        for label in ["Undo", "Cut", "Copy", "Paste", "Select All"] {
            XCTAssertNotNil(menu.item(label), "Qt's \(label) in featherpad's editor menu: \(menu)")
        }
        XCTAssertNil(menu.item("Make Uppercase"), "no MenuBus item without the theme: \(menu)")
        assertQtItemsOnce(menu, "featherpad without the theme")
        try driver.closeMenu()
    }

    func testFeatherpadEditorMenuHasMenuBusItemsAndMakeUppercaseReplacesTheWord() throws {
        try requireFeatherpad()
        try requirePlugin()
        _ = try startMenubusd()
        let driver = try launchFeatherpad(theme: true)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        let menu = try driver.openMenu("menu-key")
        for label in ["Make Uppercase", "Search Web"] {
            XCTAssertNotNil(menu.item(label), "MenuBus's \(label) in featherpad's editor menu: \(menu)")
        }
        for label in ["Undo", "Cut", "Copy", "Paste", "Select All"] {
            XCTAssertNotNil(menu.item(label), "Qt's own \(label) kept: \(menu)")
        }
        assertQtItemsOnce(menu, "featherpad with the theme")
        guard menu.item("Make Uppercase") != nil else {
            try driver.closeMenu()
            return
        }
        try driver.choose("Make Uppercase")
        XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX"), "the quick brown FOX",
                       "Make Uppercase replaced the selected word")
        // One step of the editor's own undo stack, which Qt's Undo names:
        // it puts the word back.
        let again = try driver.openMenu("menu-key")
        assertQtItemsOnce(again, "featherpad after Make Uppercase")
        XCTAssertEqual(again.labels.filter { $0.hasPrefix("Undo") }, ["Undo Make Uppercase"],
                       "Qt's own Undo, named after MenuBus's step, once: \(again)")
        try driver.choose(again.item("Undo Make Uppercase") != nil ? "Undo Make Uppercase" : "Undo")
        XCTAssertEqual(try waitForText(driver, "editor", Self.sentence), Self.sentence,
                       "Qt's Undo restored the word in one step; chosen from \(again)")
        // Once undone, the step is no longer the newest: Qt's Undo is plain again.
        let after = try driver.openMenu("menu-key")
        XCTAssertFalse(after.labels.contains("Undo Make Uppercase"), "\(after)")
        try driver.closeMenu()
        XCTAssertLessThan(try driver.ping(), 250, "featherpad's main loop answers")
    }

    /// Items that miss the deadline (MENUBUS_QT_DEADLINE_MS=0: none is
    /// waited for) are added to Qt's menu while it is open, from the
    /// presentation, and work as the others.
    func testFeatherpadMenuGetsMenuBusItemsLiveWhenTheyMissTheDeadline() throws {
        try requireFeatherpad()
        try requirePlugin()
        _ = try startMenubusd()
        let driver = try launchProgram("featherpad", module: false, extraEnvironment: [
            "QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "QT_QPA_PLATFORMTHEME": "menubus",
            "QT_PLUGIN_PATH": Self.pluginDirectory.path, "MENUBUS_DISABLE": "", "MENUBUS_QT_DEADLINE_MS": "0",
        ])
        try typeAndSelect(driver, in: "editor", Self.sentence)
        let first = try driver.openMenu("menu-key")
        XCTAssertNotNil(first.item("Cut"), "Qt's menu opened: \(first)")
        var live = first
        _ = try eventually(timeout: 10) {
            live = try driver.shownMenu()
            return live.item("Make Uppercase") != nil
        }
        XCTAssertNotNil(live.item("Make Uppercase"), "MenuBus's items came while the menu was open: \(live)")
        XCTAssertNotNil(live.item("Search Web"), "\(live)")
        assertQtItemsOnce(live, "featherpad, items added live")
        guard live.item("Make Uppercase") != nil else {
            try driver.closeMenu()
            return
        }
        try driver.choose("Make Uppercase")
        XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX"), "the quick brown FOX",
                       "Make Uppercase, added live, replaced the word")
    }

    /// The search field is a QLineEdit, whose menu Qt names `qt_edit_menu`.
    func testFeatherpadSearchFieldMenuHasMenuBusItemsAndMakeUppercaseReplacesTheWord() throws {
        try requireFeatherpad()
        try requirePlugin()
        _ = try startMenubusd()
        let driver = try launchFeatherpad(theme: true)
        try typeAndSelect(driver, in: "search", "make it louder")
        let menu = try driver.openMenu("right-click")
        for label in ["Make Uppercase", "Search Web", "Cut", "Copy", "Paste", "Select All"] {
            XCTAssertNotNil(menu.item(label), "\(label) in the search field's menu: \(menu)")
        }
        assertQtItemsOnce(menu, "featherpad's search field")
        guard menu.item("Make Uppercase") != nil else {
            try driver.closeMenu()
            return
        }
        try driver.choose("Make Uppercase")
        XCTAssertEqual(try waitForText(driver, "search", "make it LOUDER"), "make it LOUDER",
                       "Make Uppercase replaced the selected word in the field")
        let again = try driver.openMenu("right-click")
        XCTAssertNotNil(again.item("Undo Make Uppercase"), "QLineEdit's Undo names MenuBus's step: \(again)")
        assertQtItemsOnce(again, "featherpad's search field after Make Uppercase")
        if again.item("Undo Make Uppercase") != nil {
            try driver.choose("Undo Make Uppercase")
            XCTAssertEqual(try waitForText(driver, "search", "make it louder"), "make it louder",
                           "Undo Make Uppercase restored the field's word")
        } else {
            try driver.closeMenu()
        }
    }

    /// With menubusd stopped (SIGSTOP) or gone, the menu Qt shows without
    /// the theme opens as it is, quickly, and the program keeps answering;
    /// menubusd started again is followed.
    func testFeatherpadMenuIsQtsOwnWithMenubusdStoppedOrKilled() throws {
        try requireFeatherpad()
        try requirePlugin()
        let plain = try launchFeatherpad(theme: false)
        try typeAndSelect(plain, in: "editor", Self.sentence)
        let stock = try plain.openMenu("menu-key")
        try plain.closeMenu()
        plain.stop()

        var daemon = try startMenubusd()
        let driver = try launchFeatherpad(theme: true)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        XCTAssertNotNil(try driver.openMenu("menu-key").item("Make Uppercase"), "menubusd running: MenuBus's items")
        try driver.closeMenu()

        func assertStock(_ context: String) throws {
            let menu = try driver.openMenu("menu-key")
            // (featherpad's own items are QActions shared between its menus,
            // which Qt's accessibility reads from the first menu only: the
            // standard part is compared.)
            XCTAssertEqual(standardPart(menu), standardPart(stock), "\(context): Qt's items as without the theme, in \(menu)")
            for label in ["Make Uppercase", "Search Web", "Translate"] {
                XCTAssertNil(menu.item(label), "\(context): no MenuBus item in \(menu)")
            }
            XCTAssertLessThan(menu.milliseconds, 500, "\(context): the menu opened in \(menu.milliseconds) ms")
            try driver.closeMenu()
            XCTAssertLessThan(try driver.ping(), 250, "\(context): the main loop answers")
        }
        daemon.signal(SIGSTOP)
        do {
            defer { daemon.signal(SIGCONT) }
            try assertStock("menubusd stopped (SIGSTOP)")
        }
        daemon.signal(SIGKILL)
        _ = try daemon.wait(timeout: 10)
        try assertStock("menubusd killed")
        daemon = try startMenubusd()
        var shown: GtkAppDriver.OpenedMenu?
        _ = try eventually(timeout: 10) {
            let menu = try driver.openMenu("menu-key")
            try driver.closeMenu()
            shown = menu
            return menu.item("Make Uppercase") != nil
        }
        XCTAssertNotNil(shown?.item("Make Uppercase"), "menubusd restarted: MenuBus's items again in \(String(describing: shown))")
    }

    /// MENUBUS_DISABLE=1, or featherpad in the per-app list of the system's
    /// config folder, leaves Qt's menu as it is; the theme still loads.
    func testFeatherpadIsLeftOutByTheEnvironmentOrThePerAppList() throws {
        try requireFeatherpad()
        try requirePlugin()
        _ = try startMenubusd()
        let system = try Self.root.appendingPathComponent("tmp/xdg-config-dirs")
        try FileManager.default.createDirectory(at: system.appendingPathComponent("menubus"), withIntermediateDirectories: true)
        try "[Exclude]\nApps=gimp;featherpad;\n".write(to: system.appendingPathComponent("menubus/integration.conf"),
                                                       atomically: true, encoding: .utf8)
        for (context, extra) in [("MENUBUS_DISABLE=1", ["MENUBUS_DISABLE": "1"]),
                                 ("featherpad in [Exclude] Apps", ["XDG_CONFIG_DIRS": system.path])] {
            var environment = ["QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
                               "QT_QPA_PLATFORMTHEME": "menubus", "QT_PLUGIN_PATH": Self.pluginDirectory.path,
                               "MENUBUS_DISABLE": "", "MENUBUS_DEBUG": "1"]
            environment.merge(extra) { $1 }
            let driver = try launchProgram("featherpad", module: false, extraEnvironment: environment)
            try typeAndSelect(driver, in: "editor", Self.sentence)
            let menu = try driver.openMenu("menu-key")
            XCTAssertNotNil(menu.item("Cut"), "\(context): Qt's menu: \(menu)")
            XCTAssertNil(menu.item("Make Uppercase"), "\(context): no MenuBus item in \(menu)")
            try driver.closeMenu()
            driver.stop()
            // The theme was loaded all the same (it says what it wraps).
            XCTAssertTrue(driver.stderrText.contains("menubus-qt: wrapping"), "\(context): the theme loaded\n\(driver.diagnostics)")
        }
    }

    // MARK: The wrapped theme

    /// Prints what a Qt 5 program's platform theme answers, one a line:
    /// every theme hint, the palettes, the fonts, the icon theme, Copy's keys.
    private static let themeProbe = #"""
#include <QtCore/QDebug>
#include <QtCore/QMetaEnum>
#include <QtGui/QFont>
#include <QtGui/QIcon>
#include <QtGui/QPalette>
#include <QtGui/qpa/qplatformtheme.h>
#include <QtGui/private/qguiapplication_p.h>
#include <QtWidgets/QApplication>
#include <cstdio>

static QString shown(const QVariant &value)
{
    QString text;
    QDebug(&text).nospace() << value;
    return text;
}

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    const QPlatformTheme *theme = QGuiApplicationPrivate::platformTheme();
    if (!theme)
        return 2;
    for (int hint = 0; hint <= 64; hint++)
        printf("hint %d: %s\n", hint, qPrintable(shown(theme->themeHint(QPlatformTheme::ThemeHint(hint)))));
    for (int type = 0; type < QPlatformTheme::NPalettes; type++) {
        const QPalette *palette = theme->palette(QPlatformTheme::Palette(type));
        printf("palette %d: %s\n", type, palette ? qPrintable(palette->color(QPalette::Window).name() + palette->color(QPalette::Highlight).name()) : "none");
    }
    for (int type = 0; type < QPlatformTheme::NFonts; type++) {
        const QFont *font = theme->font(QPlatformTheme::Font(type));
        printf("font %d: %s\n", type, font ? qPrintable(font->toString()) : "none");
    }
    printf("icon theme: %s\n", qPrintable(QIcon::themeName()));
    printf("copy keys: %s\n", qPrintable(shown(QVariant::fromValue(theme->keyBindings(QKeySequence::Copy)))));
    printf("ok button: %s\n", qPrintable(theme->standardButtonText(0x00000400)));
    printf("native file dialog: %d\n", theme->usePlatformNativeDialog(QPlatformTheme::FileDialog));
    return 0;
}
"""#

    /// The probe, built once a run against Qt 5 (its private header gives the theme).
    private func buildThemeProbe() throws -> URL {
        let folder = try Self.root.appendingPathComponent("tmp/theme-probe")
        let binary = folder.appendingPathComponent("probe")
        if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = folder.appendingPathComponent("probe.cpp")
        try Self.themeProbe.write(to: source, atomically: true, encoding: .utf8)
        func pkg(_ arguments: [String]) throws -> String {
            try runTool("pkg-config", arguments, timeout: 30).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let version = try pkg(["--modversion", "Qt5Gui"]), include = try pkg(["--variable=includedir", "Qt5Gui"])
        let libdir = try pkg(["--variable=libdir", "Qt5Core"])
        let flags = ["-I\(libdir)/qt5/mkspecs/linux-g++"] + ["QtCore", "QtGui"].flatMap {
            ["-I\(include)/\($0)/\(version)", "-I\(include)/\($0)/\(version)/\($0)"]
        } + (try pkg(["--cflags", "--libs", "Qt5Widgets"])).split(separator: " ").map(String.init)
        let built = try runTool("g++", ["-std=c++17", "-fPIC", "-o", binary.path, source.path] + flags, timeout: 120)
        guard built.status == 0 else { throw TestFailure("the theme probe did not build: \(built.stderr)") }
        return binary
    }

    /// What the probe prints under Xvfb, on a GNOME desktop, with `environment`.
    private func probe(_ binary: URL, _ environment: [String: String]) throws -> String {
        let result = try runTool("/usr/bin/xvfb-run", ["-a", binary.path], environment: [
            "XDG_CURRENT_DESKTOP": "GNOME", "QT_QPA_PLATFORM": "xcb", "QT_QPA_PLATFORMTHEME": "",
            "MENUBUS_QT_WRAPPED_THEME": "", "QT_PLUGIN_PATH": "", "LANG": "C.UTF-8",
        ].merging(environment) { $1 }, timeout: 60)
        guard result.status == 0 else { throw TestFailure("the theme probe failed (\(result.status)): \(result.stderr)") }
        return result.stdout
    }

    /// Every themeHint, palette, font, the icon theme and the key bindings
    /// are those of the wrapped theme: named (gtk3, xdgdesktopportal), or
    /// the one Qt itself picks on this desktop (GNOME: gtk3) when none is named.
    func testTheWrappedThemeAnswersEverythingAsWithoutTheWrapper() throws {
        try requireDesktopTools([("/usr/bin/g++", "g++")])
        try requirePlugin()
        let themes = "/usr/lib/x86_64-linux-gnu/qt5/plugins/platformthemes"
        for (file, package) in [("libqgtk3.so", "qt5-gtk-platformtheme"), ("libqxdgdesktopportal.so", "qt5-xdgdesktopportal-platformtheme")]
        where !FileManager.default.fileExists(atPath: "\(themes)/\(file)") {
            throw XCTSkip("no \(themes)/\(file): \(package) is not installed; run scripts/setup")
        }
        let binary = try buildThemeProbe()
        let wrapper = ["QT_QPA_PLATFORMTHEME": "menubus", "QT_PLUGIN_PATH": Self.pluginDirectory.path]
        // (On GNOME, QT_QPA_PLATFORMTHEME=generic still gives gtk3: Qt
        // tries every name's plugin before its built-in themes.)
        let generic = try probe(binary, ["QT_QPA_PLATFORMTHEME": "generic", "XDG_CURRENT_DESKTOP": ""])
        for theme in ["gtk3", "xdgdesktopportal", "generic"] {
            let plain = try probe(binary, ["QT_QPA_PLATFORMTHEME": theme])
            let wrapped = try probe(binary, wrapper.merging(["MENUBUS_QT_WRAPPED_THEME": theme]) { $1 })
            XCTAssertEqual(wrapped, plain, "MENUBUS_QT_WRAPPED_THEME=\(theme): the wrapper answers as \(theme)")
            XCTAssertTrue(plain.contains("icon theme: "), "the probe printed the icon theme: \(plain)")
        }
        let gtk3 = try probe(binary, ["QT_QPA_PLATFORMTHEME": "gtk3"])
        XCTAssertNotEqual(gtk3, generic, "gtk3's answers differ from the generic theme's, so the comparison means something")
        XCTAssertTrue(gtk3.contains("icon theme: Adwaita"), "gtk3 gives GTK's icon theme: \(gtk3)")
        // Nothing named: the theme Qt would pick without the wrapper.
        XCTAssertEqual(try probe(binary, wrapper), try probe(binary, [:]), "no theme named: the wrapper wraps the desktop's own")
        XCTAssertEqual(try probe(binary, [:]), gtk3, "on GNOME Qt picks gtk3 itself")
    }

    // MARK: Qt 6

    /// A Qt 6 editor: a QPlainTextEdit, and a QLineEdit Ctrl+F shows and focuses.
    static let qt6Editor = #"""
#include <QtWidgets/QApplication>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QMainWindow>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QVBoxLayout>
#include <QtGui/QShortcut>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QMainWindow window;
    window.setWindowTitle("Qt 6 editor");
    auto *box = new QWidget;
    auto *layout = new QVBoxLayout(box);
    auto *search = new QLineEdit;
    search->hide();
    layout->addWidget(search);
    layout->addWidget(new QPlainTextEdit);
    window.setCentralWidget(box);
    auto *find = new QShortcut(QKeySequence::Find, &window);
    QObject::connect(find, &QShortcut::activated, search, [search]() { search->show(); search->setFocus(); });
    window.resize(640, 400);
    window.show();
    return app.exec();
}
"""#

    static let qt6PluginDirectory = Repository.root.appendingPathComponent(".build/shims/qt6")

    /// A Qt 6 program built by `buildQt6Program`, with the theme.
    private func launchQt6Program(_ binary: URL) throws -> GtkAppDriver {
        try launchProgram("qt-editor", module: false, extraEnvironment: [
            "MENUBUS_QT_EDITOR": binary.path, "QT_QPA_PLATFORMTHEME": "menubus",
            "QT_PLUGIN_PATH": Self.qt6PluginDirectory.path, "MENUBUS_DISABLE": "",
        ])
    }

    func testTheThemeLoadsInAQt6ProgramAndOffersTheItems() throws {
        let binary = try buildQt6Program("qt-editor", Self.qt6Editor)
        _ = try startMenubusd()
        let driver = try launchQt6Program(binary)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        let editor = try driver.openMenu("menu-key")
        for label in ["Make Uppercase", "Search Web", "Undo", "Cut", "Copy", "Paste", "Select All"] {
            XCTAssertNotNil(editor.item(label), "Qt 6 editor: \(label) in \(editor)")
        }
        assertQtItemsOnce(editor, "Qt 6 editor")
        if editor.item("Make Uppercase") != nil {
            try driver.choose("Make Uppercase")
            XCTAssertEqual(try waitForText(driver, "editor", "the quick brown FOX"), "the quick brown FOX",
                           "Qt 6 editor: Make Uppercase replaced the word")
        } else {
            try driver.closeMenu()
        }
        try typeAndSelect(driver, in: "search", "make it louder")
        let field = try driver.openMenu("right-click")
        for label in ["Make Uppercase", "Search Web", "Cut", "Copy", "Paste", "Select All"] {
            XCTAssertNotNil(field.item(label), "Qt 6 line edit: \(label) in \(field)")
        }
        assertQtItemsOnce(field, "Qt 6 line edit")
        try driver.closeMenu()
    }

    /// A Qt 6 notes window: a selectable QLabel above a rich-text QTextEdit
    /// (the only multi-line editor, so the driver's "editor").
    private static let qt6Notes = #"""
#include <QtWidgets/QApplication>
#include <QtWidgets/QLabel>
#include <QtWidgets/QMainWindow>
#include <QtWidgets/QTextEdit>
#include <QtWidgets/QVBoxLayout>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QMainWindow window;
    window.setWindowTitle("Qt 6 notes");
    auto *box = new QWidget;
    auto *layout = new QVBoxLayout(box);
    auto *caption = new QLabel("caption to copy");
    caption->setAccessibleName("caption");
    caption->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    layout->addWidget(caption);
    auto *notes = new QTextEdit;
    notes->setAccessibleName("notes");
    layout->addWidget(notes);
    window.setCentralWidget(box);
    window.resize(640, 400);
    window.show();
    return app.exec();
}
"""#

    /// A rich-text QTextEdit gets Format ▸ Bold, Italic, Underline, checkable,
    /// with their shortcuts; Bold makes the word bold (read through AT-SPI's
    /// text attributes) and shows checked the next time.
    func testARichTextEditGetsTheFormatSubmenuAndBoldTogglesTheWord() throws {
        let binary = try buildQt6Program("qt-notes", Self.qt6Notes)
        _ = try startMenubusd()
        let driver = try launchQt6Program(binary)
        try typeAndSelect(driver, in: "editor", Self.sentence)
        XCTAssertNotEqual(try driver.attributes("editor")["weight"], "bold", "the word starts plain")
        let menu = try driver.openMenu("menu-key")
        XCTAssertEqual(menu.item("Format")?.role, "submenu", "Format is a submenu in \(menu)")
        XCTAssertEqual(menu.item("Format")?.children.map(\.label), ["Bold", "Italic", "Underline"], "in \(menu)")
        XCTAssertNotEqual(menu.item("Bold", in: "Format")?.checked, true, "Bold is off on a plain word: \(menu)")
        assertQtItemsOnce(menu, "rich text edit")
        try driver.choose("Format > Bold")
        var weight: String?
        _ = try eventually(timeout: 10) {
            weight = try driver.attributes("editor")["weight"]
            return weight == "bold" || weight == "700"
        }
        XCTAssertTrue(weight == "bold" || weight == "700", "Bold made the word bold: weight \(weight ?? "none")")
        let again = try driver.openMenu("menu-key")
        XCTAssertEqual(again.item("Bold", in: "Format")?.checked, true, "Bold is checked on a bold word: \(again)")
        try driver.closeMenu()
    }

    /// A selectable QLabel is a read-only context once it has the focus: its
    /// edit menu offers Copy and Search Web for the selected word, nothing
    /// that edits. (Qt 6.4 opens no context menu on such a label, so the
    /// menu is read from menubusd.)
    func testASelectableLabelIsAReadOnlyContext() throws {
        let binary = try buildQt6Program("qt-notes", Self.qt6Notes)
        _ = try startMenubusd()
        let driver = try launchQt6Program(binary)
        try driver.target("caption")
        try driver.doubleClick()
        let client = try client()
        var menu: Menu?
        _ = try eventually(timeout: 10) {
            for listing in try client.listContexts() where listing.appId == "local.qt-notes" {
                let edit = try client.editMenu(owner: listing.owner, contextId: listing.contextId)
                if edit.element("menubus:copy") != nil { menu = edit }
            }
            return menu != nil
        }
        let titles = menu?.elements.compactMap(\.title) ?? []
        XCTAssertTrue(titles.contains("Search Web"), "Search Web for the label's word: \(titles)")
        for absent in ["Cut", "Paste", "Delete", "Make Uppercase"] {
            XCTAssertFalse(titles.contains(absent), "nothing that edits a label: \(absent) in \(titles)")
        }
    }

    /// Another program takes the clipboard and never answers: the theme
    /// does not ask it for its types (Qt waits up to 5 s for an answer), so
    /// typing goes on at once. The types are read when Qt reads them itself,
    /// as an edit menu opens.
    func testAClipboardOwnerThatDoesNotAnswerDoesNotStallTheProgram() throws {
        let binary = try buildQt6Program("qt-editor", Self.qt6Editor)
        _ = try startMenubusd()
        let driver = try launchQt6Program(binary)
        try driver.focus("editor")
        try driver.type("the quick")
        try driver.setStalledClipboard("copied elsewhere")
        let typed = try driver.send("type  brown fox")
        XCTAssertEqual(try driver.text("editor"), "the quick brown fox")
        let milliseconds = (typed["elapsed_ms"] as? NSNumber)?.doubleValue ?? .infinity
        XCTAssertLessThan(milliseconds, 2500, "typing after the clipboard changed took \(milliseconds) ms")
        XCTAssertLessThan(try driver.ping(), 250, "the main loop answers")
    }
}

extension DesktopProgramTestCase {
    /// `source` built with Qt 6 Widgets as the program `name` (QtAppTests,
    /// QtEditBarTests); the Qt 6 theme must be built.
    func buildQt6Program(_ name: String, _ source: String) throws -> URL {
        try requireDesktopTools([("/usr/bin/g++", "g++")])
        let plugin = QtAppTests.qt6PluginDirectory.appendingPathComponent("platformthemes/libmenubus.so")
        guard FileManager.default.fileExists(atPath: plugin.path) else {
            throw TestFailure("no Qt 6 platform theme at \(plugin.path): run `make shims` to build it")
        }
        let folder = try Self.root.appendingPathComponent("tmp/\(name)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("main.cpp"), binary = folder.appendingPathComponent(name)
        try source.write(to: file, atomically: true, encoding: .utf8)
        let flags = try runTool("pkg-config", ["--cflags", "--libs", "Qt6Widgets"], timeout: 30)
        guard flags.status == 0 else { throw XCTSkip("no Qt 6 Widgets: qt6-base-dev is not installed; run scripts/setup") }
        let built = try runTool("g++", ["-std=c++17", "-fPIC", "-o", binary.path, file.path]
            + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init), timeout: 180)
        guard built.status == 0 else { throw TestFailure("the Qt 6 program \(name) did not build: \(built.stderr)") }
        return binary
    }
}
