/* Every use of a Qt detail that is not public API, in one place, each
 * checked against the installed Qt by tests/qt-toolkit-facts.cpp (run by
 * QtToolkitFactsTests), which fails naming the detail that changed. Where
 * a detail is missing the theme does less, never something else: the
 * app's menu is left as it is, Qt's Undo keeps its name, the app keeps
 * its Qt without MenuBus. */
#include "menubus-qt.h"

#include <QtCore/QAbstractEventDispatcher>
#include <QtCore/QCoreApplication>
#include <QtCore/QEvent>
#include <QtCore/QThread>
#include <QtCore/QTimer>
#include <QtGui/qpa/qplatformintegration.h>
#include <QtGui/qpa/qplatformtheme.h>
#include <QtGui/private/qguiapplication_p.h>
#include <QtGui/qpa/qplatformthemefactory_p.h>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QMenu>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QTextEdit>

#include <cstring>

namespace mbqt {

/* Fact: on Linux, QGuiApplication's dispatcher on the main thread is
 * QPAEventDispatcherGlib (QEventDispatcherGlib's), which iterates
 * g_main_context_default(): GDBus's callbacks then run between Qt's
 * events on this thread. QT_NO_GLIB=1, or a Qt built without GLib, gives
 * QUnixEventDispatcherQPA, which never iterates GLib: no callback of the
 * core would ever run, so the theme only forwards. */
const char *glibLoopProblem()
{
    QCoreApplication *app = QCoreApplication::instance();
    if (!app || QThread::currentThread() != app->thread())
        return "not on the application's thread";
    QAbstractEventDispatcher *dispatcher = QAbstractEventDispatcher::instance();
    const char *name = dispatcher ? dispatcher->metaObject()->className() : "none";
    if (!std::strstr(name, "Glib")) {
        static QByteArray why;
        why = QByteArray("Qt's event loop is not GLib's (its dispatcher is ") + name + ", QT_NO_GLIB set?)";
        return why.constData();
    }
    /* Inside a callback of the loop, GLib's iteration holds the context. */
    if (!g_main_context_is_owner(g_main_context_default()))
        return "Qt's event loop does not iterate GLib's default main context on this thread";
    return nullptr;
}

namespace {

/* The text before the tab of an action's text: "&Copy\tCtrl+C" -> "&Copy". */
QString bareText(const QAction *action)
{
    return action->text().section(QLatin1Char('\t'), 0, 0);
}

/* Fact: QWidgetTextControl (QTextEdit, QPlainTextEdit, QLabel) names its
 * standard actions edit-undo, edit-redo, edit-cut, edit-copy, edit-paste,
 * edit-delete, select-all (Qt 5.15 and 6); QLineEdit names none, and is
 * known by its translated texts, context "QLineEdit". */
QAction *standardAction(QMenu *menu, QWidget *widget, const char *objectName, const char *lineEditText)
{
    const bool lineEdit = qobject_cast<QLineEdit *>(widget) != nullptr;
    const QString text = QCoreApplication::translate("QLineEdit", lineEditText);
    for (QAction *action : menu->actions()) {
        if (lineEdit ? bareText(action) == text : action->objectName() == QLatin1String(objectName))
            return action;
    }
    return nullptr;
}

} // namespace

bool isStandardEditMenu(QMenu *menu, QWidget *widget)
{
    return menu && widget && standardAction(menu, widget, "edit-copy", "&Copy");
}

QAction *standardUndo(QMenu *menu, QWidget *widget)
{
    return menu && widget ? standardAction(menu, widget, "edit-undo", "&Undo") : nullptr;
}

/* Fact: QLineEdit's standard menu is a QMenu child of the line edit named
 * qt_edit_menu. Fact: Qt shows a text widget's menu from its
 * contextMenuEvent, which the widget (QLineEdit) or its viewport (the
 * QAbstractScrollArea editors) receives: the QMenu is polished while that
 * event is delivered, and says aboutToShow just after. */
void EditMenuWatch::see(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::ContextMenu) {
        if (QWidget *widget = textWidgetOf(watched)) {
            *m_target = widget;
            std::weak_ptr<QPointer<QWidget>> target = m_target;
            QTimer::singleShot(0, widget, [target]() {
                if (auto held = target.lock())
                    *held = nullptr;
            });
        }
        return;
    }
    if (event->type() != QEvent::Polish)
        return;
    auto *menu = qobject_cast<QMenu *>(watched);
    if (!menu)
        return;
    QPointer<QWidget> target = *m_target;
    if (!target && menu->objectName() == QLatin1String("qt_edit_menu"))
        target = textWidgetOf(menu->parentWidget());
    if (!target)
        return;
    QPointer<QMenu> guard = menu;
    Shown shown = m_shown;
    QObject::connect(menu, &QMenu::aboutToShow, menu, [guard, target, shown]() {
        if (guard && target && isStandardEditMenu(guard, target))
            shown(guard, target);
    }, Qt::DirectConnection);
}

/* Fact: QGuiApplication chooses its theme through the QPA private API:
 * QPlatformThemeFactory::create (a plugin) for each of the names, then
 * QPlatformIntegration::createPlatformTheme (built in). */
QStringList platformThemeNames()
{
    QPlatformIntegration *integration = QGuiApplicationPrivate::platformIntegration();
    return integration ? integration->themeNames() : QStringList();
}

QPlatformTheme *createWrappedTheme(const QStringList &names)
{
    for (const QString &name : names)
        if (QPlatformTheme *theme = QPlatformThemeFactory::create(name)) {
            debug("wrapping the theme plugin '%s'", qPrintable(name));
            return theme;
        }
    QPlatformIntegration *integration = QGuiApplicationPrivate::platformIntegration();
    for (const QString &name : names)
        if (QPlatformTheme *theme = integration ? integration->createPlatformTheme(name) : nullptr) {
            debug("wrapping Qt's theme '%s'", qPrintable(name));
            return theme;
        }
    return nullptr;
}

} // namespace mbqt
