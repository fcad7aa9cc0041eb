/* Text widgets that draw their own text but expose it to accessibility
 * (KTextEditor's view, KateViewInternal): a focused widget that is none
 * of Qt's text widgets but whose QAccessibleInterface is an editable text
 * with QAccessibleTextInterface is a field of the core too. Its selection
 * is read through that interface; a replacement goes through
 * QAccessibleEditableTextInterface::replaceText where the widget has it,
 * else as an input method commits text (a QInputMethodEvent, which
 * replaces the selection as typing does), and the new text is selected
 * again. Copy, Cut, Paste, Select All, Undo and Redo are the app's own
 * actions where it has them (KXMLGUI's standard names, edit_copy...),
 * else the accessible interfaces and QClipboard.
 *
 * Its menu is the app's own QMenu, popped up while a context-menu event
 * goes to the widget (or a child, or a widget whose focus proxy it is):
 * MenuBus's items join it only when it holds the app's own Copy or Paste
 * (an action named edit_copy, edit_cut or edit_paste, as KStandardAction
 * names them), so Qt's standard commands, omitted from MenuBus's items,
 * show once; any other menu is left as the app made it.
 *
 * Fact (KXMLGUI, KStandardAction): the standard actions are named
 * edit_copy, edit_cut, edit_paste, edit_select_all, edit_undo, edit_redo;
 * AccessibleTextTests reads them in kwrite's menu (MENUBUS_DEBUG's line
 * "app menu recognised") and fails naming the one that is missing. */
#include "menubus-qt.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QEvent>
#include <QtCore/QHash>
#include <QtCore/QTimer>
#include <QtGui/QAccessible>
#include <QtGui/QClipboard>
#include <QtGui/QContextMenuEvent>
#include <QtGui/QGuiApplication>
#include <QtGui/QInputMethodEvent>
#include <QtWidgets/QApplication>
#include <QtWidgets/QMenu>
#include <QtWidgets/QWidget>

#include <cstring>

namespace mbqt {

namespace {

/* Longer selections go without their text: providers ask GetSelectedText. */
const int MAX_TEXT_CHARS = 65536;

/* KStandardAction's names of the commands the core may ask for. */
struct AppCommand {
    const char *command;
    const char *action;
};
const AppCommand appCommands[] = {
    { "copy", "edit_copy" }, { "cut", "edit_cut" }, { "paste", "edit_paste" },
    { "select-all", "edit_select_all" }, { "undo", "edit_undo" }, { "redo", "edit_redo" },
};

/* The app's menu last recognised over an accessible text widget: where its
 * actions are found first. */
QPointer<QMenu> lastMenu;
QPointer<QWidget> lastMenuWidget;

QAccessibleInterface *accessibleOf(QWidget *widget)
{
    return widget ? QAccessible::queryAccessibleInterface(widget) : nullptr;
}

QAccessibleTextInterface *textOf(QWidget *widget)
{
    QAccessibleInterface *accessible = accessibleOf(widget);
    return accessible && accessible->isValid() ? accessible->textInterface() : nullptr;
}

QAction *actionNamed(const QList<QAction *> &actions, const char *name)
{
    for (QAction *action : actions)
        if (action->objectName() == QLatin1String(name))
            return action;
    return nullptr;
}

/* The app's action `name` for `widget`: in its menu shown last, on the
 * widget or one of its parents, or in a menu of its window (KXMLGUI's
 * menu bar holds the view's actions); what the window's menus gave is
 * kept for the widget, so a flags update does not search them again. */
QAction *appAction(QWidget *widget, const char *name)
{
    static QPointer<QWidget> cachedFor;
    static QHash<QByteArray, QPointer<QAction>> cached;
    if (!widget)
        return nullptr;
    if (lastMenu && lastMenuWidget == widget)
        if (QAction *action = actionNamed(lastMenu->actions(), name))
            return action;
    for (QWidget *at = widget; at; at = at->parentWidget())
        if (QAction *action = actionNamed(at->actions(), name))
            return action;
    if (cachedFor != widget) {
        cachedFor = widget;
        cached.clear();
    }
    auto known = cached.constFind(QByteArray(name));
    if (known != cached.constEnd() && *known)
        return *known;
    const QList<QMenu *> menus = widget->window()->findChildren<QMenu *>();
    for (QMenu *menu : menus)
        if (QAction *action = actionNamed(menu->actions(), name)) {
            cached.insert(QByteArray(name), action);
            return action;
        }
    return nullptr;
}

const char *appActionName(const char *command)
{
    for (const AppCommand &entry : appCommands)
        if (!std::strcmp(entry.command, command))
            return entry.action;
    return nullptr;
}

QWidget *widgetOf(gpointer data)
{
    return static_cast<Field *>(data)->widget.data();
}

/* The selection, or the caret as an empty range; false without a text interface. */
bool selectedRange(QAccessibleTextInterface *text, int *start, int *end)
{
    if (!text)
        return false;
    *start = *end = text->cursorPosition();
    if (text->selectionCount() > 0) {
        int from = 0, to = 0;
        text->selection(0, &from, &to);
        if (from != to) {
            *start = qMin(from, to);
            *end = qMax(from, to);
        }
    }
    return true;
}

/* Input methods are the widget's way of taking text it did not type. */
bool takesInputMethods(QWidget *widget)
{
    return widget->testAttribute(Qt::WA_InputMethodEnabled);
}

/* Editable, and there is a way to put text in. */
bool isEditableText(QWidget *widget, QAccessibleInterface *accessible)
{
    const QAccessible::State state = accessible->state();
    return state.editable && !state.readOnly && (accessible->editableTextInterface() || takesInputMethods(widget));
}

MbFieldFlags flags(gpointer data)
{
    QWidget *widget = widgetOf(data);
    QAccessibleInterface *accessible = accessibleOf(widget);
    if (!accessible || !accessible->isValid() || !accessible->textInterface())
        return MbFieldFlags(0);
    int flags = 0;
    const bool editable = isEditableText(widget, accessible);
    if (editable)
        flags |= MB_FIELD_EDITABLE;
    if (accessible->textInterface()->characterCount() > 0)
        flags |= MB_FIELD_HAS_CONTENT;
    /* Undo is the app's own: offered only where its Undo can be triggered. */
    if (editable && appAction(widget, "edit_undo"))
        flags |= MB_FIELD_OWN_UNDO;
    return MbFieldFlags(flags);
}

void selection(gpointer data, MbSelection *out)
{
    out->kind = MB_SELECTION_NONE;
    QAccessibleTextInterface *text = textOf(widgetOf(data));
    int start = 0, end = 0;
    if (!selectedRange(text, &start, &end))
        return;
    if (start == end) {
        out->kind = MB_SELECTION_CARET;
        return;
    }
    out->kind = start == 0 && end >= text->characterCount() ? MB_SELECTION_ALL : MB_SELECTION_RANGE;
    out->length = guint(end - start);
    if (end - start <= MAX_TEXT_CHARS) {
        const QString selected = text->text(start, end);
        if (!selected.isEmpty())
            out->text = g_strdup(selected.toUtf8().constData());
    }
}

/* The selection (or the caret) replaced by `text`, which is selected
 * then: through the editable text interface, else committed as an input
 * method commits text (the widget replaces its selection as for typing,
 * one step of its own undo). */
bool replaceSelection(QWidget *widget, const QString &text)
{
    QAccessibleInterface *accessible = accessibleOf(widget);
    if (!accessible || !accessible->isValid() || !accessible->textInterface() || !isEditableText(widget, accessible))
        return false;
    QAccessibleTextInterface *textInterface = accessible->textInterface();
    int start = 0, end = 0;
    if (!selectedRange(textInterface, &start, &end))
        return false;
    if (QAccessibleEditableTextInterface *editable = accessible->editableTextInterface()) {
        editable->replaceText(start, end, text);
    } else {
        /* Within one line, as an input method replaces surrounding text:
         * no selection, the caret at its start, the range replaced with
         * the commit (KTextEditor makes that one undo step; replacing
         * its selection first would be two). Across lines, the selection
         * is replaced as typing replaces it. */
        QInputMethodEvent commit;
        const QString old = textInterface->text(start, end);
        if (start != end && !old.contains(QLatin1Char('\n')) && !old.contains(QChar(0x2029))) {
            textInterface->removeSelection(0);
            textInterface->setCursorPosition(start);
            commit.setCommitString(text, 0, end - start);
        } else {
            commit.setCommitString(text);
        }
        QCoreApplication::sendEvent(widget, &commit);
    }
    /* The interface may be another now (the widget's own may be remade). */
    QAccessibleInterface *after = accessibleOf(widget);
    if (after && after->isValid() && after->textInterface() && !text.isEmpty())
        after->textInterface()->setSelection(0, start, start + text.size());
    return true;
}

/* A command chosen in a menu: the app's own action where it has one. */
void perform(gpointer data, const gchar *command_, const gchar *text_, const gchar *)
{
    auto *field = static_cast<Field *>(data);
    QWidget *widget = field->widget;
    if (!widget)
        return;
    const QString command = QString::fromUtf8(command_);
    if (command == QLatin1String("replace-selection")) {
        replaceSelection(widget, QString::fromUtf8(text_ ? text_ : ""));
        mb_field_changed(field->core);
        return;
    }
    if (const char *name = appActionName(command_)) {
        if (QAction *action = appAction(widget, name)) {
            if (action->isEnabled())
                action->trigger();
            return;
        }
    }
    QAccessibleTextInterface *text = textOf(widget);
    int start = 0, end = 0;
    if (!selectedRange(text, &start, &end))
        return;
    const bool editable = flags(field) & MB_FIELD_EDITABLE;
    if ((command == QLatin1String("copy") || command == QLatin1String("cut")) && start != end) {
        QGuiApplication::clipboard()->setText(text->text(start, end));
        if (command == QLatin1String("cut") && editable)
            replaceSelection(widget, QString());
    } else if (command == QLatin1String("paste") && editable) {
        replaceSelection(widget, QGuiApplication::clipboard()->text());
    } else if (command == QLatin1String("delete") && editable && start != end) {
        replaceSelection(widget, QString());
    } else if (command == QLatin1String("select-all")) {
        text->setSelection(0, 0, text->characterCount());
    }
}

/* MenuBus undo steps are never recorded here (the app has its own). */
void apply(gpointer, const MbEdit *, guint)
{
}

/* Asked from outside (ShowMenuForFocus): the widget's own context menu at
 * its caret, as the Menu key opens it. Posted: the app may run exec(). */
gboolean showMenu(gpointer data, guint32)
{
    QWidget *widget = widgetOf(data);
    if (!widget || !widget->isVisible())
        return FALSE;
    QPoint at = widget->inputMethodQuery(Qt::ImCursorRectangle).toRect().center();
    if (!widget->rect().contains(at))
        at = widget->rect().center();
    QCoreApplication::postEvent(widget, new QContextMenuEvent(QContextMenuEvent::Keyboard, at, widget->mapToGlobal(at)));
    return TRUE;
}

/* The app's menu is one the theme extends: it holds the app's own Copy,
 * Cut or Paste (KStandardAction's names). */
bool isAppEditMenu(QMenu *menu)
{
    for (const char *name : { "edit_copy", "edit_cut", "edit_paste" })
        if (actionNamed(menu->actions(), name))
            return true;
    return false;
}

/* The app's menu about to show over `widget`: MenuBus's items join it
 * when the theme recognises it. */
void offer(QMenu *menu, QWidget *widget)
{
    if (menu->property("menubus-extended").toBool())
        return;
    if (!isAppEditMenu(menu)) {
        debug("the menu over %s holds no edit_copy, edit_cut or edit_paste: left as it is",
              widget->metaObject()->className());
        return;
    }
    lastMenu = menu;
    lastMenuWidget = widget;
    QStringList found;
    for (const AppCommand &entry : appCommands)
        found << QString::fromLatin1(entry.action)
                + (actionNamed(menu->actions(), entry.action) ? " (menu)" : appAction(widget, entry.action) ? " (app)" : " (missing)");
    debug("app menu recognised over %s: %s", widget->metaObject()->className(), qPrintable(found.join(QLatin1String(", "))));
    extendMenu(menu, widget);
}

/* A context-menu event to `watched` is one for the focused accessible text
 * widget: it is that widget, a child of it, or a widget whose focus proxy it is. */
QWidget *menuTargetOf(QObject *watched)
{
    if (QWidget *widget = accessibleTextWidgetOf(watched))
        return widget;
    QWidget *focused = QApplication::focusWidget();
    if (!watched->isWidgetType() || !accessibleTextWidgetOf(focused))
        return nullptr;
    auto *widget = static_cast<QWidget *>(watched);
    return focused->isAncestorOf(widget) || widget->focusProxy() == focused ? focused : nullptr;
}

} // namespace

QWidget *accessibleTextWidgetOf(QObject *object)
{
    if (!object || !object->isWidgetType() || textWidgetOf(object))
        return nullptr;
    auto *widget = static_cast<QWidget *>(object);
    if (widget->property("menubus-exclude").toBool() || qobject_cast<QMenu *>(widget))
        return nullptr;
    QAccessibleInterface *accessible = accessibleOf(widget);
    if (!accessible || !accessible->isValid() || accessible->role() != QAccessible::EditableText
        || !accessible->textInterface())
        return nullptr;
    return accessible->state().passwordEdit ? nullptr : widget;
}

QWidget *fieldWidgetOf(QObject *object)
{
    if (QWidget *widget = textWidgetOf(object))
        return widget;
    return accessibleTextWidgetOf(object);
}

const MbFieldOps accessibleFieldOps = { flags, selection, perform, apply, showMenu, showBar, hideBar };

void AccessibleMenuWatch::see(QObject *watched, QEvent *event)
{
    switch (event->type()) {
    case QEvent::ContextMenu:
        if (QWidget *widget = menuTargetOf(watched)) {
            *m_target = widget;
            std::weak_ptr<QPointer<QWidget>> target = m_target;
            QTimer::singleShot(0, widget, [target]() {
                if (auto held = target.lock())
                    *held = nullptr;
            });
        }
        break;
    case QEvent::Polish:
        /* Each menu is heard as it is about to show (an app's menu may be
         * polished once and shown many times). */
        if (auto *menu = qobject_cast<QMenu *>(watched)) {
            std::weak_ptr<QPointer<QWidget>> target = m_target;
            QPointer<QMenu> guard = menu;
            QObject::connect(menu, &QMenu::aboutToShow, menu, [target, guard]() {
                auto held = target.lock();
                if (held && *held && guard)
                    offer(guard, *held);
            }, Qt::DirectConnection);
        }
        break;
    case QEvent::Show:
        /* A menu polished before the theme started: extended as it shows. */
        if (auto *menu = qobject_cast<QMenu *>(watched))
            if (*m_target)
                offer(menu, *m_target);
        break;
    case QEvent::KeyRelease:
    case QEvent::MouseButtonRelease:
        /* Its selection is read once the keyboard or the mouse may have moved it. */
        if (Field *field = watched->isWidgetType() ? fieldOf(static_cast<QWidget *>(watched), false) : nullptr)
            if (!textWidgetOf(watched))
                mb_field_changed(field->core);
        break;
    default:
        break;
    }
}

} // namespace mbqt
