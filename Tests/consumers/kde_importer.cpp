// KDE's dbusmenu consumer as Plasma's tray uses it: libdbusmenu-qt5's
// DBusMenuImporter filling a QMenu. Built by the tests with
//   g++ -std=c++17 -fPIC kde_importer.cpp $(pkg-config --cflags --libs Qt5Widgets Qt5DBus dbusmenu-qt5)
// and run with QT_QPA_PLATFORM=offscreen.
//
//   kde_importer OWNER CONTEXT KIND [--open]
//     presents the menu (this process is the presenter), imports it and
//     prints TREE with the QMenu's content each time it has changed and
//     settled: {"open": visible, "items": [...]} (see describe). With --open it first asks
//     updateMenu() (AboutToShow) and pops the menu up once menuUpdated
//     comes, as Plasma does. Reads commands from stdin, one a line:
//       click LABEL   hides the menu and triggers the item, as a click does
//       quit
#include <QApplication>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusObjectPath>
#include <QDBusReply>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QSocketNotifier>
#include <QTimer>
#include <cstdio>
#include <dbusmenuimporter.h>
#include <unistd.h>

static const char *busName = "org.menubus.MenuBus1";

// The follow modes' strings: "[x] Label" checked, "[ ] Label" checkable and
// unchecked, "Label" otherwise, "-" a separator; a submenu's items follow it
// as "Submenu>item". Hidden actions are left out.
static void describe(QMenu *menu, const QString &prefix, QJsonArray &items) {
    for (QAction *action : menu->actions()) {
        if (!action->isVisible()) continue;
        if (action->isSeparator()) {
            items.append(prefix + "-");
            continue;
        }
        QString text = action->text();
        QString mark = !action->isCheckable() ? "" : action->isChecked() ? "[x] " : "[ ] ";
        items.append(prefix + mark + text);
        if (action->menu()) describe(action->menu(), prefix + text + ">", items);
    }
}

static QJsonArray describe(QMenu *menu) {
    QJsonArray items;
    describe(menu, "", items);
    return items;
}

static QAction *find(QMenu *menu, const QString &label) {
    for (QAction *action : menu->actions()) {
        if (action->text() == label) return action;
        if (action->menu())
            if (QAction *found = find(action->menu(), label)) return found;
    }
    return nullptr;
}

static void report(const char *tag, const QJsonObject &value) {
    QByteArray json = QJsonDocument(value).toJson(QJsonDocument::Compact);
    std::printf("%s %s\n", tag, json.constData());
    std::fflush(stdout);
}

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    QStringList args = app.arguments();
    if (args.size() < 4) {
        std::fprintf(stderr, "usage: kde_importer OWNER CONTEXT KIND [--open]\n");
        return 2;
    }
    bool open = args.contains("--open");
    QDBusMessage call = QDBusMessage::createMethodCall(busName, "/org/menubus/MenuBus1", "org.menubus.MenuBus1",
                                                       "PresentMenu");
    call << args[1] << args[2] << args[3] << QVariantMap();
    QDBusReply<QDBusObjectPath> reply = QDBusConnection::sessionBus().call(call);
    if (!reply.isValid()) {
        report("ERROR", QJsonObject{{"message", reply.error().message()}});
        return 1;
    }
    DBusMenuImporter importer(busName, reply.value().path());
    QMenu *menu = importer.menu();
    bool shown = false;
    if (open) {
        QObject::connect(&importer, &DBusMenuImporter::menuUpdated, [&]() {
            if (shown) return;
            shown = true;
            menu->popup(QPoint(10, 10));
        });
        importer.updateMenu();
    }

    // The importer fills menus in steps (a GetLayout per submenu): report
    // a snapshot once it held for a few polls.
    QJsonObject printed, pending;
    int held = 0;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&]() {
        QJsonObject snapshot{{"open", menu->isVisible()}, {"items", describe(menu)}};
        if (snapshot == printed) return;
        if (snapshot != pending) {
            pending = snapshot;
            held = 0;
            return;
        }
        if (++held < 5) return;
        if (open && !shown) return;
        printed = snapshot;
        report("TREE", snapshot);
    });
    poll.start(20);

    QSocketNotifier input(STDIN_FILENO, QSocketNotifier::Read);
    QObject::connect(&input, &QSocketNotifier::activated, [&]() {
        char line[512];
        if (!std::fgets(line, sizeof line, stdin)) {
            app.quit();
            return;
        }
        QString command = QString::fromUtf8(line).trimmed();
        if (command == "quit") {
            app.quit();
        } else if (command.startsWith("click ")) {
            QAction *action = find(menu, command.mid(6));
            if (!action) {
                report("ERROR", QJsonObject{{"message", "no item " + command.mid(6)}});
                return;
            }
            // As QMenu does on a click: the popup hides, then the action triggers.
            menu->hide();
            action->trigger();
            report("CLICKED", QJsonObject{{"label", action->text()}});
        }
    });
    QTimer::singleShot(60000, &app, [&]() {
        report("ERROR", QJsonObject{{"message", "timed out"}});
        app.exit(1);
    });
    return app.exec();
}
