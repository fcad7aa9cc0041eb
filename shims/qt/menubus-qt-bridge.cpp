/* Turning MenuBus on in a Qt app, and following its text widgets: an
 * application-wide event filter makes each QLineEdit, QTextEdit,
 * QPlainTextEdit and selectable QLabel a field of the core once focused,
 * tells the core when its text or selection changes (the core gathers
 * changes for 16 ms, one call in flight), and hands Qt's standard edit
 * menus to menubus-qt-menu.cpp as they are about to show.
 *
 * Left out, the theme still forwarding everything: a Qt whose event loop
 * is not GLib's (QT_NO_GLIB=1), an app that is not a QApplication, an app
 * the core turns off (MENUBUS_DISABLE=1, `[Exclude] Apps=` of
 * menubus/integration.conf naming the executable), one widget with the
 * property `menubus-exclude` true, and password fields. */
#include "menubus-qt.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QEvent>
#include <QtCore/QFileInfo>
#include <QtCore/QHash>
#include <QtCore/QMimeData>
#include <QtCore/QVector>
#include <QtGui/QClipboard>
#include <QtGui/QGuiApplication>
#include <QtGui/QKeyEvent>
#include <QtGui/QMouseEvent>
#include <QtWidgets/QApplication>
#include <QtWidgets/QComboBox>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QMenu>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QTextEdit>

#include <cstdarg>

namespace mbqt {

void debug(const char *format, ...)
{
    static const bool toStderr = qEnvironmentVariableIsSet("MENUBUS_DEBUG");
    va_list args;
    va_start(args, format);
    gchar *line = g_strdup_vprintf(format, args);
    va_end(args);
    if (toStderr)
        qDebug("menubus-qt: %s", line);
    else
        g_log("MenuBus", G_LOG_LEVEL_DEBUG, "menubus-qt: %s", line);
    g_free(line);
}

namespace {

/* MIME types sent of the clipboard, at most. */
const int MAX_CLIPBOARD_TYPES = 32;

/* The field a widget with the keyboard focus is: itself, or an editable
 * combo box's line edit, whose focus proxy the box is (the box hands it
 * its focus events directly, past the filter). */
QWidget *focusedFieldWidgetOf(QObject *object)
{
    if (auto *combo = qobject_cast<QComboBox *>(object))
        return combo->lineEdit() ? textWidgetOf(combo->lineEdit()) : nullptr;
    return fieldWidgetOf(object);
}

void menuShown(QMenu *menu, QWidget *widget)
{
    extendMenu(menu, widget);
}

class Bridge : public QObject
{
public:
    Bridge() : QObject(QCoreApplication::instance()), m_menus(menuShown) {}
    ~Bridge() override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    Field *fieldOf(QWidget *widget, bool create);

private:
    void follow(QWidget *widget);
    void forget(QObject *widget);

    /* Removed as each widget's `destroyed` comes, before its memory can
     * be another object's. */
    QHash<QObject *, Field *> m_fields;
    EditMenuWatch m_menus;
    AccessibleMenuWatch m_accessibleMenus;
};

Bridge *bridge = nullptr;

Bridge::~Bridge()
{
    for (Field *field : qAsConst(m_fields)) {
        mb_field_free(field->core);
        delete field;
    }
    m_fields.clear();
    bridge = nullptr;
}

Field *Bridge::fieldOf(QWidget *widget, bool create)
{
    if (Field *field = m_fields.value(widget))
        return field;
    if (!create || !widget)
        return nullptr;
    auto *field = new Field;
    field->widget = widget;
    field->core = mb_field_new(field, textWidgetOf(widget) ? &fieldOps : &accessibleFieldOps);
    m_fields.insert(widget, field);
    follow(widget);
    return field;
}

/* Its text and selection changes reach the core, which gathers them. */
void Bridge::follow(QWidget *widget)
{
    QPointer<QWidget> guard = widget;
    auto update = [this, guard]() {
        if (Field *field = guard ? m_fields.value(guard.data()) : nullptr)
            mb_field_changed(field->core);
    };
    if (auto *edit = qobject_cast<QLineEdit *>(widget)) {
        connect(edit, &QLineEdit::selectionChanged, this, update);
        connect(edit, &QLineEdit::textChanged, this, update);
        connect(edit, &QLineEdit::cursorPositionChanged, this, update);
    } else if (auto *edit = qobject_cast<QTextEdit *>(widget)) {
        connect(edit, &QTextEdit::selectionChanged, this, update);
        connect(edit, &QTextEdit::textChanged, this, update);
        connect(edit, &QTextEdit::currentCharFormatChanged, this, update);
    } else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget)) {
        connect(edit, &QPlainTextEdit::selectionChanged, this, update);
        connect(edit, &QPlainTextEdit::textChanged, this, update);
    }
    connect(widget, &QObject::destroyed, this, [this](QObject *object) { forget(object); });
}

/* The widget is going: its context goes, and nothing pending of it
 * reaches anything (the core drops its field's calls). */
void Bridge::forget(QObject *widget)
{
    Field *field = m_fields.take(widget);
    if (!field)
        return;
    mb_field_free(field->core);
    delete field;
}

bool Bridge::eventFilter(QObject *watched, QEvent *event)
{
    if (barSees(watched, event))
        return true;
    switch (event->type()) {
    case QEvent::FocusIn:
        if (QWidget *widget = focusedFieldWidgetOf(watched))
            mb_field_focused(fieldOf(widget, true)->core);
        break;
    case QEvent::FocusOut:
        if (Field *field = m_fields.value(focusedFieldWidgetOf(watched)))
            mb_field_blurred(field->core);
        break;
    case QEvent::KeyPress:
        /* Reaching the window, the key went unused by the app's shortcuts
         * (those take it before any widget sees it) and by every widget
         * from the focused one up: a provider's shortcut may have it. */
        /* Not a window that is itself the focused widget (a top-level text
         * edit) or a menu: those have not had the key yet. Not a key held
         * down: once. */
        if (watched->isWidgetType() && static_cast<QWidget *>(watched)->isWindow() &&
            watched != QApplication::focusWidget() && !qobject_cast<QMenu *>(watched) &&
            !static_cast<QKeyEvent *>(event)->isAutoRepeat()) {
            auto *key = static_cast<QKeyEvent *>(event);
            Field *field = m_fields.value(focusedFieldWidgetOf(QApplication::focusWidget()));
            const QByteArray accelerator = field ? gtkAccelerator(key) : QByteArray();
            if (!accelerator.isEmpty() && mb_field_shortcut(field->core, accelerator.constData(), key->timestamp())) {
                key->accept();
                return true;
            }
        }
        break;
    case QEvent::MouseButtonRelease:
        /* A selection made with the pointer (a text edit's go to its
         * viewport): the edit bar, where it is on, once it stands still. */
        if (static_cast<QMouseEvent *>(event)->button() == Qt::LeftButton && mb_shim_edit_bar_enabled())
            if (Field *field = m_fields.value(fieldWidgetOf(watched)))
                mb_field_pointer_selected(field->core);
        Q_FALLTHROUGH();
    case QEvent::KeyRelease:
        /* A QLabel has no selectionChanged: its selection is read once the
         * mouse or the keyboard may have moved it. */
        if (qobject_cast<QLabel *>(watched))
            if (Field *field = m_fields.value(watched))
                mb_field_changed(field->core);
        m_accessibleMenus.see(watched, event);
        break;
    case QEvent::ContextMenu:
    case QEvent::Polish:
        m_menus.see(watched, event);
        m_accessibleMenus.see(watched, event);
        break;
    case QEvent::Show:
        m_accessibleMenus.see(watched, event);
        break;
    default:
        break;
    }
    return false;
}

/* The app's name for itself as MenuBus knows apps: its desktop file's. */
void nameTheApp()
{
    if (!g_get_prgname()) {
        const QByteArray name = QFileInfo(QCoreApplication::applicationFilePath()).fileName().toUtf8();
        if (!name.isEmpty())
            g_set_prgname(name.constData());
    }
    /* Qt's own id for the app (org.kde.kate), when it has one. */
    QString desktop = QGuiApplication::desktopFileName();
    if (desktop.endsWith(QLatin1String(".desktop")))
        desktop.chop(8);
    if (!desktop.isEmpty())
        mb_shim_set_app_id(desktop.toUtf8().constData());
}

void followClipboard()
{
    QClipboard *clipboard = QGuiApplication::clipboard();
    if (!clipboard)
        return;
    /* Another program's clipboard is read only when Qt reads it too (an
     * edit menu about to show): asking its owner waits on that program,
     * up to Qt's clipboard timeout. This app's own is read at once. */
    QObject::connect(clipboard, &QClipboard::dataChanged, bridge, [clipboard]() {
        mb_shim_set_clipboard_types(nullptr);
        if (clipboard->ownsClipboard())
            readClipboard();
    });
}

} // namespace

Field *fieldOf(QWidget *widget, bool create)
{
    return bridge ? bridge->fieldOf(widget, create) : nullptr;
}

void readClipboard()
{
    const QMimeData *data = QGuiApplication::clipboard()->mimeData(QClipboard::Clipboard);
    const QStringList formats = data ? data->formats() : QStringList();
    QList<QByteArray> utf8;
    for (const QString &format : formats)
        if (utf8.size() < MAX_CLIPBOARD_TYPES && format.contains(QLatin1Char('/')))
            utf8 << format.toUtf8();
    QVector<const gchar *> types;
    for (const QByteArray &type : qAsConst(utf8))
        types << type.constData();
    types << nullptr;
    mb_shim_set_clipboard_types(types.constData());
}

void startBridge()
{
    if (bridge)
        return;
    if (!qobject_cast<QApplication *>(QCoreApplication::instance())) {
        debug("not a QApplication (no widgets): the theme only forwards");
        return;
    }
    if (const char *why = glibLoopProblem()) {
        debug("%s: the theme only forwards", why);
        return;
    }
    nameTheApp();
    if (!mb_shim_enabled("qt")) {
        debug("turned off for this program (MENUBUS_DISABLE or [Exclude] Apps of menubus/integration.conf)");
        return;
    }
    /* Qt's own edit menus show these: MenuBus's leave them out. */
    mb_shim_omit_commands(qtCommands);
    bridge = new Bridge();
    QCoreApplication::instance()->installEventFilter(bridge);
    followClipboard();
    /* A text widget that had the focus before the loop ran. */
    if (QWidget *focused = focusedFieldWidgetOf(QApplication::focusWidget()))
        mb_field_focused(bridge->fieldOf(focused, true)->core);
}

} // namespace mbqt
