/* The Qt details the MenuBus theme relies on that are not Qt's public API
 * (shims/qt/menubus-qt-facts.cpp), checked against the Qt this is built
 * with, through the theme's own functions and real widgets. Prints a line
 * a check, "ok: ..." or "FAILED: ..." naming what changed, and exits 1 when
 * any failed. Run by Tests/MenuBusTests/QtToolkitFactsTests.swift with
 * QT_QPA_PLATFORM=offscreen; with QT_NO_GLIB=1 it checks that the theme
 * sees Qt's loop is not GLib's (and would only forward). */
#include "menubus-qt.h"

#include <QtCore/QTimer>
#include <QtGui/QContextMenuEvent>
#include <QtGui/qpa/qplatformtheme.h>
#include <QtWidgets/QApplication>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QMenu>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QTextEdit>
#include <QtWidgets/QVBoxLayout>

#include <cstdio>
#include <memory>

namespace {

int failures = 0, checks = 0;

void check(bool ok, const QString &what, const QString &otherwise)
{
    checks++;
    if (ok) {
        std::printf("ok: %s\n", qPrintable(what));
    } else {
        std::printf("FAILED: %s: %s\n", qPrintable(what), qPrintable(otherwise));
        failures++;
    }
    std::fflush(stdout);
}

QString actionsOf(QMenu *menu)
{
    QStringList list;
    for (QAction *action : menu->actions())
        list << QStringLiteral("'%1' (%2)").arg(action->text(), action->objectName());
    return list.join(QLatin1String(", "));
}

/* What the watch found, as the bridge's filter would hand it on. */
QPointer<QMenu> foundMenu;
QPointer<QWidget> foundWidget;
int found = 0;

void shown(QMenu *menu, QWidget *widget)
{
    foundMenu = menu;
    foundWidget = widget;
    found++;
}

class Forward : public QObject
{
public:
    mbqt::EditMenuWatch watch { shown };
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        watch.see(watched, event);
        return false;
    }
};

/* A line edit whose app shows a menu of its own on a right click. */
class OwnMenuEdit : public QLineEdit
{
protected:
    void contextMenuEvent(QContextMenuEvent *event) override
    {
        auto *menu = new QMenu(this);
        menu->addAction(QStringLiteral("Frobnicate"));
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(event->globalPos());
    }
};

/* A context-menu event to `target`, as a right click gives; any popup it
 * opens is closed on the next turn of the loop (the editors' menus run a
 * loop of their own). */
void rightClick(QWidget *target)
{
    found = 0;
    foundMenu = nullptr;
    foundWidget = nullptr;
    QTimer::singleShot(0, []() {
        if (QWidget *popup = QApplication::activePopupWidget())
            popup->close();
    });
    QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(5, 5), target->mapToGlobal(QPoint(5, 5)));
    QApplication::sendEvent(target, &event);
    QApplication::processEvents();
    if (QWidget *popup = QApplication::activePopupWidget())
        popup->close();
}

void checkStandardMenus()
{
    QLineEdit line;
    line.setText(QStringLiteral("some text"));
    std::unique_ptr<QMenu> menu(line.createStandardContextMenu());
    check(menu->objectName() == QLatin1String("qt_edit_menu") && menu->parentWidget() == &line,
          "QLineEdit's standard menu is a child of it named qt_edit_menu",
          QStringLiteral("named '%1'").arg(menu->objectName()));
    check(mbqt::isStandardEditMenu(menu.get(), &line),
          "QLineEdit's menu has Copy as QLineEdit translates \"&Copy\"", actionsOf(menu.get()));
    check(mbqt::standardUndo(menu.get(), &line) != nullptr,
          "QLineEdit's menu has Undo as QLineEdit translates \"&Undo\"", actionsOf(menu.get()));

    QPlainTextEdit plain;
    QTextEdit rich;
    for (QWidget *widget : { static_cast<QWidget *>(&plain), static_cast<QWidget *>(&rich) }) {
        const QString name = QString::fromLatin1(widget->metaObject()->className());
        std::unique_ptr<QMenu> own(qobject_cast<QPlainTextEdit *>(widget)
                                       ? plain.createStandardContextMenu() : rich.createStandardContextMenu());
        check(mbqt::isStandardEditMenu(own.get(), widget),
              name + "'s menu (QWidgetTextControl's) has an action named edit-copy", actionsOf(own.get()));
        check(mbqt::standardUndo(own.get(), widget) != nullptr,
              name + "'s menu has an action named edit-undo", actionsOf(own.get()));
    }
}

void checkRightClicks(Forward *forward)
{
    QWidget window;
    auto *layout = new QVBoxLayout(&window);
    auto *line = new QLineEdit(QStringLiteral("a line"));
    auto *plain = new QPlainTextEdit(QStringLiteral("plain text"));
    auto *rich = new QTextEdit(QStringLiteral("rich text"));
    auto *own = new OwnMenuEdit;
    for (QWidget *widget : { static_cast<QWidget *>(line), static_cast<QWidget *>(plain), static_cast<QWidget *>(rich),
                             static_cast<QWidget *>(own) })
        layout->addWidget(widget);
    window.show();
    qApp->installEventFilter(forward);

    rightClick(line);
    check(found == 1 && foundWidget == line, "a right click on a QLineEdit shows Qt's menu the theme finds",
          QStringLiteral("found %1 menus").arg(found));
    rightClick(plain->viewport());
    check(found == 1 && foundWidget == plain,
          "a right click on a QPlainTextEdit's viewport shows a menu, polished while the event is delivered, "
          "that the theme finds", QStringLiteral("found %1 menus").arg(found));
    rightClick(rich->viewport());
    check(found == 1 && foundWidget == rich, "the same for a QTextEdit's viewport",
          QStringLiteral("found %1 menus").arg(found));
    rightClick(own);
    check(found == 0, "an app's own menu on a text widget (no Qt Copy in it) is left as it is",
          QStringLiteral("found %1 menus").arg(found));
    qApp->removeEventFilter(forward);
}

void checkThemeFactory()
{
    const QStringList names = mbqt::platformThemeNames();
    check(!names.isEmpty(), "the platform integration names its themes (QPlatformIntegration::themeNames)",
          QStringLiteral("none named"));
    std::unique_ptr<QPlatformTheme> theme(mbqt::createWrappedTheme(names + QStringList { QStringLiteral("generic") }));
    check(theme != nullptr, "a theme is made for them (QPlatformThemeFactory, createPlatformTheme)",
          QStringLiteral("none of %1 made").arg(names.join(QLatin1Char(','))));
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    Forward forward;
    const bool glib = !qEnvironmentVariableIsSet("QT_NO_GLIB");
    QTimer::singleShot(0, &app, [&]() {
        const char *problem = mbqt::glibLoopProblem();
        if (glib)
            check(!problem, "Qt's loop on the GUI thread is GLib's, iterating g_main_context_default()",
                  QString::fromUtf8(problem ? problem : ""));
        else
            check(problem != nullptr, "with QT_NO_GLIB the theme sees Qt's loop is not GLib's (and only forwards)",
                  QStringLiteral("it did not"));
        checkStandardMenus();
        checkRightClicks(&forward);
        checkThemeFactory();
        std::printf("done: %d of %d Qt facts failed (Qt %s)\n", failures, checks, qVersion());
        app.exit(failures ? 1 : 0);
    });
    return app.exec();
}
