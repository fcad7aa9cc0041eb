// KDE's dbusmenu consumer (libdbusmenu-qt5's DBusMenuImporter, as
// Plasma's tray uses it) following several menus for bench/changes/changes.py.
// Built by bench/changes/changes.sh with
//   g++ -std=c++17 -O2 -fPIC changes-kde.cpp $(pkg-config --cflags --libs Qt5Widgets Qt5DBus dbusmenu-qt5)
// and run with QT_QPA_PLATFORM=offscreen.
//
//   changes-kde NAME PATH [NAME PATH ...]
//     imports each menu into its own QMenu and, whenever the top level of
//     menu I changed (an action added, removed or changed), prints
//       MENU I NANOSECONDS ["label", ...]
//     NANOSECONDS is CLOCK_MONOTONIC when the last change of that batch
//     happened (the menu as the importer left it once it returned to the
//     event loop); labels are the visible, non-separator actions' texts.
//     Exits when stdin closes.
#include <QApplication>
#include <QEvent>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMenu>
#include <QSocketNotifier>
#include <QTimer>
#include <cstdio>
#include <ctime>
#include <dbusmenuimporter.h>
#include <memory>
#include <unistd.h>
#include <vector>

static long long monotonicNanoseconds() {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec;
}

class Follower : public QObject {
public:
    Follower(int index, const QString &name, const QString &path)
        : index(index), importer(name, path) {
        importer.menu()->installEventFilter(this);
    }

    bool eventFilter(QObject *, QEvent *event) override {
        switch (event->type()) {
        case QEvent::ActionAdded:
        case QEvent::ActionRemoved:
        case QEvent::ActionChanged:
            changedAt = monotonicNanoseconds();
            if (!scheduled) {
                scheduled = true;
                QTimer::singleShot(0, this, [this]() { report(); });
            }
            break;
        default:
            break;
        }
        return false;
    }

private:
    void report() {
        scheduled = false;
        QJsonArray labels;
        for (QAction *action : importer.menu()->actions()) {
            if (action->isVisible() && !action->isSeparator()) labels.append(action->text());
        }
        QByteArray json = QJsonDocument(labels).toJson(QJsonDocument::Compact);
        if (json == printed) return;
        printed = json;
        std::printf("MENU %d %lld %s\n", index, changedAt, json.constData());
        std::fflush(stdout);
    }

    int index;
    DBusMenuImporter importer;
    long long changedAt = 0;
    bool scheduled = false;
    QByteArray printed;
};

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    if (argc < 3 || (argc - 1) % 2 != 0) {
        std::fprintf(stderr, "usage: changes-kde NAME PATH [NAME PATH ...]\n");
        return 2;
    }
    std::vector<std::unique_ptr<Follower>> followers;
    for (int i = 1; i + 1 < argc; i += 2) {
        followers.push_back(std::make_unique<Follower>(static_cast<int>(followers.size()), argv[i], argv[i + 1]));
    }
    QSocketNotifier input(STDIN_FILENO, QSocketNotifier::Read);
    QObject::connect(&input, &QSocketNotifier::activated, [&]() {
        char buffer[256];
        if (read(STDIN_FILENO, buffer, sizeof buffer) <= 0) app.quit();
    });
    QTimer::singleShot(600000, &app, [&]() { app.exit(1); });
    return app.exec();
}
