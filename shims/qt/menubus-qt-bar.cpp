/* The edit bar (opt-in: [Edit Bar] of menubus/integration.conf): a
 * compact row of buttons just above a selection made with the pointer
 * (below it where the screen has no room above), as iOS shows its edit
 * menu: Qt's own Cut, Copy and Paste where they apply, the items the core
 * chose (Translate, Search Web, the providers'), then "›", which opens the
 * field's whole edit menu.
 *
 * It is a frameless tool-tip window of the field (override-redirect on
 * X11, a popup of the field's window on Wayland) that never takes the
 * keyboard focus: typing goes on into the field. Its QToolBar is named
 * "Edit Bar" and its buttons are push buttons named after their items, as
 * a screen reader announces them. It goes on a key (Escape is used for
 * that alone), a click elsewhere, a scroll, the field's window moving or
 * going inactive, the field hidden; the core hides it when the selection
 * changes or the field loses the focus. One bar at a time in the app. */
#include "menubus-qt.h"
#include "menubus-policy.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QEvent>
#include <QtCore/QMimeData>
#include <QtGui/QClipboard>
#include <QtGui/QGuiApplication>
#include <QtGui/QKeyEvent>
#include <QtGui/QScreen>
#include <QtGui/QTextCursor>
#include <QtGui/QWindow>
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
#include <QtGui/QAction>
#else
#include <QtWidgets/QAction>
#endif
#include <QtWidgets/QApplication>
#include <QtWidgets/QFrame>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QTextEdit>
#include <QtWidgets/QToolBar>
#include <QtWidgets/QToolButton>

#include <cstring>

namespace mbqt {

namespace {

/* Between the selection and the bar, in device-independent pixels. */
const int GAP = 6;

class EditBar : public QFrame
{
public:
    explicit EditBar(QWidget *field);
    void fill(GVariant *items);
    void place();
    int buttons() const { return m_tools->actions().size(); }

    QPointer<QWidget> field;

private:
    QToolBar *m_tools;
};

QPointer<EditBar> current;
bool escapeTaken = false;

using ShowMenu = gboolean (*)(gpointer, guint32);

/* The whole menu through the field's own show_menu, as the Menu key opens it. */
ShowMenu showMenuOf(QWidget *widget)
{
    return textWidgetOf(widget) ? fieldOps.show_menu : accessibleFieldOps.show_menu;
}

/* The bar goes through the core, which then calls hideBar; a field gone
 * meanwhile leaves only the window to hide. */
void dismiss()
{
    if (!current)
        return;
    if (Field *field = fieldOf(current->field, false))
        mb_field_dismiss_bar(field->core);
    if (current)
        current->hide();
}

void choose(const QPointer<QWidget> &widget, const QByteArray &id)
{
    Field *field = fieldOf(widget, false);
    dismiss();
    if (field)
        mb_field_choose(field->core, id.constData(), 0);
}

/* Qt's own Cut, Copy or Paste, done by the widget's own slots as from Qt's menu. */
void perform(const QPointer<QWidget> &widget, const char *command)
{
    Field *field = fieldOf(widget, false);
    dismiss();
    if (field && widget)
        (textWidgetOf(widget) ? fieldOps : accessibleFieldOps).perform(field, command, nullptr, nullptr);
}

void showWholeMenu(const QPointer<QWidget> &widget)
{
    Field *field = fieldOf(widget, false);
    dismiss();
    if (field && widget)
        if (ShowMenu show = showMenuOf(widget))
            show(field, 0);
}

EditBar::EditBar(QWidget *widget)
    : QFrame(widget, Qt::ToolTip | Qt::FramelessWindowHint | Qt::WindowDoesNotAcceptFocus), field(widget)
{
    setAttribute(Qt::WA_ShowWithoutActivating);
    setAttribute(Qt::WA_X11DoNotAcceptFocus);
    setFocusPolicy(Qt::NoFocus);
    setObjectName(QStringLiteral("menubus-edit-bar"));
    setAccessibleName(QStringLiteral("Edit Bar"));
    /* A tool tip's colours are the tool tip's: the bar looks like a
     * toolbar, framed as a menu is. */
    setBackgroundRole(QPalette::Window);
    setAutoFillBackground(true);
    setFrameStyle(QFrame::StyledPanel | QFrame::Raised);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(frameWidth(), frameWidth(), frameWidth(), frameWidth());
    m_tools = new QToolBar(this);
    m_tools->setAccessibleName(QStringLiteral("Edit Bar"));
    m_tools->setFocusPolicy(Qt::NoFocus);
    m_tools->setMovable(false);
    m_tools->setFloatable(false);
    m_tools->setToolButtonStyle(Qt::ToolButtonTextOnly);
    layout->addWidget(m_tools);
}

/* Qt's own Cut, Copy and Paste where they apply (menubusd leaves them out
 * of this app's menus: omit-commands), then one button for each of the
 * core's items in its order, at most MB_BAR_MAX_ITEMS in all, then "›".
 * Paste is offered in an editable field unless the clipboard is this
 * app's and holds no text: another program's is not asked (it may not
 * answer for seconds). */
void EditBar::fill(GVariant *items)
{
    const QList<QAction *> old = m_tools->actions();
    m_tools->clear();
    qDeleteAll(old);
    QPointer<QWidget> widget = field;
    const bool editable = isEditable(field);
    QClipboard *clipboard = QGuiApplication::clipboard();
    const bool pasteable = editable && clipboard
        && (!clipboard->ownsClipboard() || (clipboard->mimeData() && clipboard->mimeData()->hasText()));
    /* Named as in Qt's own menu, in the app's language where Qt's
     * translations are loaded. */
    const struct {
        const char *command, *title;
        bool applies;
    } standard[] = { { "cut", QT_TRANSLATE_NOOP("QWidgetTextControl", "Cu&t"), editable },
                     { "copy", QT_TRANSLATE_NOOP("QWidgetTextControl", "&Copy"), true },
                     { "paste", QT_TRANSLATE_NOOP("QWidgetTextControl", "&Paste"), pasteable } };
    int added = 0;
    for (const auto &item : standard) {
        if (!item.applies)
            continue;
        auto *action = new QAction(QCoreApplication::translate("QWidgetTextControl", item.title), m_tools);
        const char *command = item.command;
        QObject::connect(action, &QAction::triggered, action, [widget, command]() { perform(widget, command); });
        m_tools->addAction(action);
        added++;
    }
    const gsize n = g_variant_n_children(items);
    for (gsize i = 0; i < n && added < MB_BAR_MAX_ITEMS; i++) {
        const gchar *id = nullptr, *parent = nullptr;
        GVariant *properties = nullptr;
        g_variant_get_child(items, i, "(&s&s@a{sv})", &id, &parent, &properties);
        const gchar *title = nullptr, *command = nullptr;
        g_variant_lookup(properties, "command", "&s", &command);
        const bool own = command && (!strcmp(command, "cut") || !strcmp(command, "copy") || !strcmp(command, "paste"));
        if (!own && g_variant_lookup(properties, "title", "&s", &title) && *title) {
            QString label = QString::fromUtf8(title);
            label.replace(QLatin1Char('&'), QLatin1String("&&"));
            auto *action = new QAction(label, m_tools);
            const QByteArray item(id);
            QObject::connect(action, &QAction::triggered, action, [widget, item]() { choose(widget, item); });
            m_tools->addAction(action);
            added++;
        }
        g_variant_unref(properties);
    }
    auto *more = new QAction(QStringLiteral("\u203a"), m_tools);
    more->setToolTip(QStringLiteral("More"));
    QObject::connect(more, &QAction::triggered, more, [widget]() { showWholeMenu(widget); });
    m_tools->addAction(more);
    for (QAction *action : m_tools->actions())
        if (QWidget *button = m_tools->widgetForAction(action)) {
            button->setFocusPolicy(Qt::NoFocus);
            if (action == more)
                button->setAccessibleName(QStringLiteral("More"));
        }
}

/* The selection's rectangle in the field, in the field's coordinates: its
 * first to its last character, the whole width when it spans lines. */
QRect selectionRect(QWidget *widget)
{
    QRect start, end;
    QWidget *space = widget;
    auto ends = [&](auto *edit) {
        const QTextCursor cursor = edit->textCursor();
        QTextCursor first(cursor), last(cursor);
        first.setPosition(cursor.selectionStart());
        last.setPosition(cursor.selectionEnd());
        start = edit->cursorRect(first);
        end = edit->cursorRect(last);
        space = edit->viewport();
    };
    if (auto *edit = qobject_cast<QPlainTextEdit *>(widget)) {
        ends(edit);
    } else if (auto *edit = qobject_cast<QTextEdit *>(widget)) {
        ends(edit);
    } else {
        start = widget->inputMethodQuery(Qt::ImAnchorRectangle).toRect();
        end = widget->inputMethodQuery(Qt::ImCursorRectangle).toRect();
    }
    if (start.isNull() && end.isNull())
        return widget->rect();
    if (start.isNull())
        start = end;
    if (end.isNull())
        end = start;
    QRect rect(QPoint(qMin(start.left(), end.left()), qMin(start.top(), end.top())),
               QPoint(qMax(start.right(), end.right()), qMax(start.bottom(), end.bottom())));
    if (start.top() != end.top()) {
        rect.setLeft(0);
        rect.setRight(space->width() - 1);
    }
    rect = rect.intersected(space->rect());
    if (rect.isEmpty())
        rect = space->rect();
    return QRect(space->mapTo(widget, rect.topLeft()), rect.size());
}

/* Centred just above the selection, below it where the screen has no room. */
void EditBar::place()
{
    adjustSize();
    const QRect local = selectionRect(field);
    const QRect global(field->mapToGlobal(local.topLeft()), local.size());
    QScreen *screen = QGuiApplication::screenAt(global.center());
    if (!screen)
        screen = field->window()->windowHandle() ? field->window()->windowHandle()->screen() : QGuiApplication::primaryScreen();
    const QRect room = screen ? screen->availableGeometry() : QRect();
    QPoint at(global.center().x() - width() / 2, global.top() - GAP - height());
    if (!room.isEmpty()) {
        if (at.y() < room.top())
            at.setY(global.bottom() + 1 + GAP);
        at.setX(qBound(room.left(), at.x(), qMax(room.left(), room.right() + 1 - width())));
    }
    move(at);
}

bool isModifier(int key)
{
    switch (key) {
    case Qt::Key_Shift:
    case Qt::Key_Control:
    case Qt::Key_Alt:
    case Qt::Key_AltGr:
    case Qt::Key_Meta:
    case Qt::Key_Super_L:
    case Qt::Key_Super_R:
    case Qt::Key_Hyper_L:
    case Qt::Key_Hyper_R:
    case Qt::Key_CapsLock:
    case Qt::Key_NumLock:
        return true;
    default:
        return false;
    }
}

} // namespace

void showBar(gpointer data, GVariant *items)
{
    QWidget *widget = static_cast<Field *>(data)->widget;
    if (!widget || !widget->isVisible())
        return;
    if (current && current->field != widget)
        delete current.data();
    if (!current)
        current = new EditBar(widget);
    current->fill(items);
    current->place();
    current->show();
    current->raise();
    QWidget *focus = QApplication::focusWidget();
    debug("edit bar shown: %d buttons at %d,%d, the focus %s", current->buttons(), current->x(),
          current->y(), focus == widget || (focus && widget->isAncestorOf(focus)) ? "kept" : "moved");
}

void hideBar(gpointer data)
{
    if (current && current->field == static_cast<Field *>(data)->widget)
        current->hide();
}

bool barSees(QObject *watched, QEvent *event)
{
    /* The Escape that closed the bar (as ShortcutOverride) goes no further:
     * it does not close the field's dialog too. */
    if (escapeTaken && (event->type() == QEvent::KeyPress || event->type() == QEvent::KeyRelease)) {
        const bool escape = static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape;
        escapeTaken = false; /* once: a later Escape is the app's whatever came between */
        if (escape && event->type() == QEvent::KeyPress)
            return true;
    }
    if (!current || !current->isVisible())
        return false;
    /* A click goes to the window (QWidgetWindow) before its widget. */
    const bool inBar = watched->isWidgetType() ? static_cast<QWidget *>(watched)->window() == current
                                               : watched->isWindowType() && watched == current->windowHandle();
    QWidget *window = current->field ? current->field->window() : nullptr;
    switch (event->type()) {
    case QEvent::ShortcutOverride:
    case QEvent::KeyPress: {
        /* Typing goes on into the field (a key one of the app's shortcuts
         * takes comes as ShortcutOverride only); Escape only closes the
         * bar, before any shortcut of the app's has it. A modifier alone
         * leaves it. */
        const int key = static_cast<QKeyEvent *>(event)->key();
        if (isModifier(key))
            break;
        dismiss();
        if (key != Qt::Key_Escape)
            break;
        escapeTaken = event->type() == QEvent::ShortcutOverride;
        event->accept();
        return true;
    }
    case QEvent::MouseButtonPress:
    case QEvent::MouseButtonDblClick:
    case QEvent::Wheel:
        if (!inBar)
            dismiss();
        break;
    case QEvent::Move:
    case QEvent::Resize:
    case QEvent::WindowDeactivate:
    case QEvent::WindowStateChange:
        if (watched == window)
            dismiss();
        break;
    case QEvent::Hide:
        if (watched == current->field || watched == window)
            dismiss();
        break;
    default:
        break;
    }
    return false;
}

} // namespace mbqt
