/* MenuBus in unmodified Qt Widgets apps: what the files of the Qt
 * platform theme share. The talking to menubusd is the shims' common core
 * (shims/core/, GDBus); these files are Qt's side of it:
 *
 *   menubus-qt-theme.cpp   the plugin, and the wrapped theme every call goes to
 *   menubus-qt-bridge.cpp  turning it on, the event filter, fields, the clipboard
 *   menubus-qt-menu.cpp    MenuBus's items in Qt's open edit menu
 *   menubus-qt-text.cpp    what a text widget is and does (MbFieldOps)
 *   menubus-qt-keys.cpp    a key the window let pass, as a provider's shortcut
 *   menubus-qt-bar.cpp     the edit bar over a selection made with the pointer
 *   menubus-qt-accessible.cpp  widgets that draw their own text, through
 *                          Qt's accessible text interfaces (KTextEditor's)
 *   menubus-qt-facts.cpp   every use of a Qt detail that is not public API,
 *                          each checked by tests/qt-toolkit-facts.cpp
 *
 * Everything runs on the GUI thread, whose Qt event loop is GLib's default
 * main context: the core's GDBus callbacks come there too. Built with
 * QT_NO_KEYWORDS (GIO's headers name struct members `signals`). */
#ifndef MENUBUS_QT_H
#define MENUBUS_QT_H

#include <QtCore/QPointer>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <memory>

#include "menubus-shim.h"

class QAction;
class QByteArray;
class QEvent;
class QKeyEvent;
class QObject;
class QMenu;
class QPlatformTheme;
class QWidget;

namespace mbqt {

/* MENUBUS_DEBUG (anything) prints on stderr as "menubus-qt: ..."; without
 * it the lines go to GLib's log domain MenuBus (G_MESSAGES_DEBUG=MenuBus). */
void debug(const char *format, ...) G_GNUC_PRINTF(1, 2);

/* A text widget while it takes part, the pointer the core's MbFieldOps get:
 * the widget by QPointer (never by address), its core field, and MenuBus's
 * last replacement while it is the widget's newest undo step. */
struct Field {
    QPointer<QWidget> widget;
    MbField *core = nullptr;
    QString undoName;
    int undoRevision = -1; /* QTextEdit, QPlainTextEdit: the document's revision after it */
    QString undoText;      /* QLineEdit: the text after it */
};

/* ---- menubus-qt-bridge.cpp ---- */

/* Started once the application object is whole and its loop runs. */
void startBridge();
/* The field of a text widget (made with `create`); null for other widgets. */
Field *fieldOf(QWidget *widget, bool create);
/* The clipboard's MIME types, read now (Qt has just read them for its Paste). */
void readClipboard();

/* ---- menubus-qt-text.cpp ---- */

/* The text widget `object` is, or is the viewport of: QLineEdit (never a
 * password), QTextEdit, QPlainTextEdit, selectable QLabel; not one with
 * the property `menubus-exclude` true. */
QWidget *textWidgetOf(QObject *object);
extern const MbFieldOps fieldOps;
/* Qt's standard commands, shown by Qt's own menus: MenuBus's are left out. */
extern const char *const qtCommands[];
bool isEditable(QWidget *widget);

/* ---- menubus-qt-keys.cpp ---- */

/* The key as a GTK accelerator (`<Control><Alt>u`), empty for a key with
 * neither Control, Alt nor Meta, or one GDK's names do not cover here. */
QByteArray gtkAccelerator(const QKeyEvent *event);

/* ---- menubus-qt-bar.cpp ---- */

/* MbFieldOps' show_bar and hide_bar, for any field. */
void showBar(gpointer field, GVariant *items);
void hideBar(gpointer field);
/* Every event the bridge's filter sees, while a bar shows: a key, a click
 * elsewhere, a scroll, the window moving close it. True: the event is
 * used (the Escape that closed it). */
bool barSees(QObject *watched, QEvent *event);

/* ---- menubus-qt-accessible.cpp ---- */

/* A widget that is none of the above but whose accessible interface is an
 * editable text with a QAccessibleTextInterface (never a password, nor one
 * with `menubus-exclude` true). */
QWidget *accessibleTextWidgetOf(QObject *object);
/* textWidgetOf's widget, else accessibleTextWidgetOf's. */
QWidget *fieldWidgetOf(QObject *object);
extern const MbFieldOps accessibleFieldOps;
/* The app's own menu popped up over such a widget (a context-menu event
 * to it, then a QMenu about to show) gets MenuBus's items when it holds
 * the app's Copy, Cut or Paste; its selection is read again after a key or
 * a click. The bridge hands it every event its filter sees. */
class AccessibleMenuWatch
{
public:
    void see(QObject *watched, QEvent *event);

private:
    std::shared_ptr<QPointer<QWidget>> m_target = std::make_shared<QPointer<QWidget>>();
};

/* ---- menubus-qt-menu.cpp ---- */

/* Qt's standard edit menu of `widget` is about to show. */
void extendMenu(QMenu *menu, QWidget *widget);

/* ---- menubus-qt-facts.cpp: Qt's details that are not public API ---- */

/* Why the core cannot run here (null when it can): Qt's loop on this
 * thread must be GLib's, iterating g_main_context_default(). Call it from
 * a callback of Qt's event loop. */
const char *glibLoopProblem();
/* Finds Qt's standard edit menu of a text widget as it is about to show:
 * a QMenu polished while a context-menu event goes to the widget (or its
 * viewport), or QLineEdit's menu named qt_edit_menu; taken only when it
 * holds Qt's own Copy (QWidgetTextControl's actions are named edit-copy...,
 * QLineEdit's known by their translated text), else the app's menu is left
 * as it is. The bridge hands it every event its filter sees. */
class EditMenuWatch
{
public:
    using Shown = void (*)(QMenu *menu, QWidget *widget);
    explicit EditMenuWatch(Shown shown) : m_shown(shown) {}
    void see(QObject *watched, QEvent *event);

private:
    Shown m_shown;
    /* A context-menu event is going to it; shared with the turn of the
     * loop that forgets it, which may come after the watch has gone. */
    std::shared_ptr<QPointer<QWidget>> m_target = std::make_shared<QPointer<QWidget>>();
};
bool isStandardEditMenu(QMenu *menu, QWidget *widget);
/* Qt's own Undo item in its standard menu, or null. */
QAction *standardUndo(QMenu *menu, QWidget *widget);
/* The theme Qt would have chosen for these names (its plugins first, then
 * the platform integration's built-in ones), or null. */
QPlatformTheme *createWrappedTheme(const QStringList &names);
QStringList platformThemeNames();

} // namespace mbqt

#endif
