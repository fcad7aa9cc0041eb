/* MenuBus's items in Qt's standard edit menu: presented through the core
 * (mb_menu_present) as the menu is about to show; the items the core
 * already has (read ahead) go in at once, after Qt's own, and items that
 * come later, or change, join the menu while it is open. Qt's standard
 * commands are left out of MenuBus's (omit-commands, set on each field),
 * so nothing shows twice. Qt's Undo is named after MenuBus's replacement
 * while that is the widget's newest undo step ("Undo Make Uppercase").
 *
 * Each shown menu is known by a serial, which the core's callbacks and the
 * menu's actions carry: a callback for a menu closed meanwhile finds
 * nothing and does nothing. The core hands on only items of the type and
 * within the bounds of the contract; a property of another type than the
 * contract's is read as absent. */
#include "menubus-qt.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QHash>
#include <QtCore/QTimer>
#include <QtGui/QIcon>
#include <QtGui/QKeySequence>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QMenu>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QTextEdit>
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
#include <QtGui/QActionGroup>
#else
#include <QtWidgets/QActionGroup>
#endif

namespace mbqt {

namespace {

/* One of Qt's menus while it shows MenuBus's items. */
struct Shown {
    quint64 serial = 0;
    QPointer<QMenu> menu;
    MbMenu *presented = nullptr;
    GVariant *items = nullptr;          /* what is shown of MenuBus's */
    QList<QPointer<QAction>> actions;   /* what was added to the menu's top level */
    /* The menu's closing, heard once: an app's menu shown again (KTextEditor's) gathers none. */
    QMetaObject::Connection hidden, destroyed;
};

QHash<quint64, Shown *> shownMenus;
quint64 lastSerial = 0;

#ifdef MENUBUS_BENCH_REPLAY
/* bench/desktop/qt-menu.sh's floor, never in a build that is installed:
 * the first menu's items shown again in every later menu with no call to
 * menubusd, so what Qt takes to draw them is measured alone. */
GVariant *replayed = nullptr;
#endif

QString stringOf(GVariant *properties, const char *key)
{
    GVariant *value = g_variant_lookup_value(properties, key, G_VARIANT_TYPE_STRING);
    if (!value)
        return QString();
    QString text = QString::fromUtf8(g_variant_get_string(value, nullptr));
    g_variant_unref(value);
    return text;
}

QStringList listOf(GVariant *properties, const char *key)
{
    GVariant *value = g_variant_lookup_value(properties, key, G_VARIANT_TYPE_STRING_ARRAY);
    QStringList list;
    if (!value)
        return list;
    gsize n = 0;
    const gchar **strings = g_variant_get_strv(value, &n);
    for (gsize i = 0; i < n && i < 64; i++)
        list << QString::fromUtf8(strings[i]);
    g_free(strings);
    g_variant_unref(value);
    return list;
}

/* "<Control><Shift>z" → "Ctrl+Shift+Z", for display only. */
QKeySequence shortcutOf(const QString &accel)
{
    QString text = accel;
    text.replace(QLatin1String("<Control>"), QLatin1String("Ctrl+"))
        .replace(QLatin1String("<Primary>"), QLatin1String("Ctrl+"))
        .replace(QLatin1String("<Shift>"), QLatin1String("Shift+"))
        .replace(QLatin1String("<Alt>"), QLatin1String("Alt+"))
        .replace(QLatin1String("<Super>"), QLatin1String("Meta+"));
    return QKeySequence::fromString(text);
}

/* Bold, Italic and Underline keep their check box while off. */
bool isToggleCommand(const QString &command)
{
    return command == QLatin1String("bold") || command == QLatin1String("italic")
        || command == QLatin1String("underline");
}

void activate(quint64 serial, const QString &item)
{
    Shown *shown = shownMenus.value(serial);
    if (shown && shown->presented)
        mb_menu_activate(shown->presented, item.toUtf8().constData(), 0);
}

/* The elements, a(ssa{sv}) as GetLayout gives them, added after Qt's own. */
void addItems(QMenu *menu, GVariant *items, quint64 serial)
{
    QHash<QString, QMenu *> menus;
    QHash<QMenu *, bool> filled;
    QHash<QString, QActionGroup *> radios; /* single-selection menus, by id */
    menus.insert(QString(), menu);
    filled.insert(menu, false);
    menu->addSeparator();
    const gsize n = g_variant_n_children(items);
    for (gsize i = 0; i < n; i++) {
        const gchar *id_, *parent_;
        GVariant *p = nullptr;
        g_variant_get_child(items, i, "(&s&s@a{sv})", &id_, &parent_, &p);
        const QString id = QString::fromUtf8(id_);
        QMenu *parent = menus.value(QString::fromUtf8(parent_));
        const QStringList attributes = listOf(p, "attributes");
        QString type = stringOf(p, "type");
        if (type.isEmpty())
            type = QStringLiteral("action");
        const QString title = stringOf(p, "title");
        const QString icon = stringOf(p, "icon");
        if (!parent || attributes.contains(QStringLiteral("hidden"))) {
            g_variant_unref(p);
            continue;
        }
        if (type == QLatin1String("menu")) {
            const QStringList options = listOf(p, "options");
            if (options.contains(QStringLiteral("single-selection")))
                radios.insert(id, new QActionGroup(parent));
            if (options.contains(QStringLiteral("inline"))) {
                if (filled.value(parent))
                    parent->addSeparator();
                menus.insert(id, parent);
            } else {
                QMenu *sub = parent->addMenu(title);
                if (!icon.isEmpty())
                    sub->setIcon(QIcon::fromTheme(icon));
                sub->setEnabled(!attributes.contains(QStringLiteral("disabled")));
                menus.insert(id, sub);
                filled.insert(sub, false);
                filled[parent] = true;
            }
        } else if (type == QLatin1String("deferred")) {
            QAction *loading = parent->addAction(QCoreApplication::translate("MenuBus", "Loading…"));
            loading->setEnabled(false);
            filled[parent] = true;
        } else {
            QString label = title;
            label.replace(QLatin1Char('&'), QLatin1String("&&"));
            QAction *action = parent->addAction(label);
            if (!icon.isEmpty())
                action->setIcon(QIcon::fromTheme(icon));
            action->setEnabled(!attributes.contains(QStringLiteral("disabled")));
            const QString state = stringOf(p, "state");
            if (state == QLatin1String("on") || state == QLatin1String("mixed") || isToggleCommand(stringOf(p, "command"))) {
                action->setCheckable(true);
                action->setChecked(state == QLatin1String("on") || state == QLatin1String("mixed"));
            }
            if (QActionGroup *group = radios.value(QString::fromUtf8(parent_))) {
                action->setCheckable(true);
                action->setActionGroup(group);
                action->setChecked(state == QLatin1String("on"));
            }
            const QString shortcut = stringOf(p, "shortcut");
            if (!shortcut.isEmpty()) {
                action->setShortcut(shortcutOf(shortcut));
                action->setShortcutContext(Qt::WidgetShortcut);
            }
            QObject::connect(action, &QAction::triggered, action, [serial, id]() { activate(serial, id); });
            filled[parent] = true;
        }
        g_variant_unref(p);
    }
}

/* MenuBus's part of the menu, replaced when it changed; none for `items` null. */
void showItems(Shown *shown, GVariant *items)
{
    QMenu *menu = shown->menu;
    if (items && !g_variant_is_of_type(items, G_VARIANT_TYPE("a(ssa{sv})"))) {
        debug("menu items of type %s ignored", g_variant_get_type_string(items));
        return;
    }
    if (!menu || (items && shown->items && g_variant_equal(items, shown->items)) || (!items && !shown->items))
        return;
    for (const QPointer<QAction> &action : qAsConst(shown->actions)) {
        if (!action)
            continue;
        menu->removeAction(action);
        if (QMenu *sub = action->menu())
            sub->deleteLater();
        action->deleteLater();
    }
    shown->actions.clear();
    g_clear_pointer(&shown->items, g_variant_unref);
    if (!items || g_variant_n_children(items) == 0)
        return;
    shown->items = g_variant_ref(items);
    const QList<QAction *> before = menu->actions();
    addItems(menu, items, shown->serial);
    for (QAction *action : menu->actions())
        if (!before.contains(action))
            shown->actions.append(action);
}

/* The core's word on a menu: new items while it is open, or (null) none. */
void presentationChanged(MbMenu *, GVariant *items, gpointer data)
{
    Shown *shown = shownMenus.value(GPOINTER_TO_SIZE(data));
    if (!shown)
        return;
#ifdef MENUBUS_BENCH_REPLAY
    if (items && !replayed)
        replayed = g_variant_ref(items);
#endif
    showItems(shown, items);
}

/* Qt's menu closed (or went): the presentation ends, MenuBus's items leave
 * the menu, so a menu the app shows again is extended afresh. */
void close(quint64 serial)
{
    Shown *shown = shownMenus.take(serial);
    if (!shown)
        return;
    mb_menu_close(shown->presented);
    shown->presented = nullptr;
    QObject::disconnect(shown->hidden);
    QObject::disconnect(shown->destroyed);
    if (shown->menu) {
        showItems(shown, nullptr);
        shown->menu->setProperty("menubus-extended", QVariant());
    }
    g_clear_pointer(&shown->items, g_variant_unref);
    delete shown;
}

/* Qt's Undo names MenuBus's step while it is the newest ("Undo Make
 * Uppercase"): the widget's own undo stack holds it, as one step. */
void nameUndo(QMenu *menu, Field *field)
{
    QWidget *widget = field->widget;
    if (field->undoName.isEmpty() || !widget)
        return;
    bool newest = false;
    if (auto *edit = qobject_cast<QLineEdit *>(widget))
        newest = edit->text() == field->undoText && edit->isUndoAvailable();
    else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget))
        newest = edit->document()->revision() == field->undoRevision && edit->document()->isUndoAvailable();
    else if (auto *edit = qobject_cast<QTextEdit *>(widget))
        newest = edit->document()->revision() == field->undoRevision && edit->document()->isUndoAvailable();
    if (!newest) {
        field->undoName.clear();
        return;
    }
    QAction *undo = standardUndo(menu, widget);
    if (!undo)
        return;
    /* "&Undo\tCtrl+Z" → "&Undo Make Uppercase\tCtrl+Z" */
    QString text = undo->text();
    const int tab = text.indexOf(QLatin1Char('\t'));
    QString name = field->undoName;
    name.replace(QLatin1Char('&'), QLatin1String("&&"));
    text.insert(tab < 0 ? text.size() : tab, QLatin1Char(' ') + name);
    undo->setText(text);
}

} // namespace

void extendMenu(QMenu *menu, QWidget *widget)
{
    Field *field = fieldOf(widget, true);
    if (!field || menu->property("menubus-extended").toBool())
        return;
    nameUndo(menu, field);
    if (!mb_shim_daemon())
        return; /* not running: Qt's menu as it is, nothing asked */
    /* Qt's menu has just read the clipboard to enable its Paste. */
    if (isEditable(widget))
        readClipboard();
    if (!widget->hasFocus())
        mb_field_focused(field->core);
    auto *shown = new Shown;
    shown->serial = ++lastSerial;
    shown->menu = menu;
    shownMenus.insert(shown->serial, shown);
    menu->setProperty("menubus-extended", true);
    GVariant *items = nullptr;
    gpointer data = GSIZE_TO_POINTER(shown->serial);
#ifdef MENUBUS_BENCH_REPLAY
    if (replayed)
        items = g_variant_ref(replayed);
    else if ((shown->presented = mb_menu_present(field->core, presentationChanged, data, &items)) && items)
        replayed = g_variant_ref(items);
#else
    shown->presented = mb_menu_present(field->core, presentationChanged, data, &items);
#endif
    if (items) {
        showItems(shown, items);
        g_variant_unref(items);
    }
    const quint64 serial = shown->serial;
    /* Qt hides the menu before it triggers the chosen action: the
     * presentation ends on the next turn of the loop, after the choice. */
    shown->hidden = QObject::connect(menu, &QMenu::aboutToHide, menu, [serial]() {
        QTimer::singleShot(0, QCoreApplication::instance(), [serial]() { close(serial); });
    });
    shown->destroyed = QObject::connect(menu, &QObject::destroyed, QCoreApplication::instance(), [serial]() { close(serial); });
}

} // namespace mbqt
